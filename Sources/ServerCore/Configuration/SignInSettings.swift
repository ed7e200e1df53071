import Foundation

/// Sign-in to the console with an OpenID Connect provider (docs/access.md, "Sign-in"). Off
/// while `issuer` is empty: the console then signs in with a pasted token only.
public struct SignInSettings: Sendable, Codable, Equatable {
    /// The provider's issuer URL (`https://accounts.google.com`); its
    /// `/.well-known/openid-configuration` names the other endpoints.
    public var issuer = ""
    public var clientID = ""
    /// The client secret the provider issued (or `RCS_OIDC_CLIENT_SECRET`); empty for a public
    /// client, which PKCE alone protects.
    public var clientSecret = ""
    /// The server's address as browsers reach it (`https://config.example.com`): the redirect
    /// URI registered at the provider is this plus `/auth/oidc/callback`. Empty: taken from
    /// each request's `Host` (and `X-Forwarded-Proto` from a trusted proxy).
    public var publicURL = ""
    /// What the console's button says: "Sign in with …".
    public var providerName = "single sign-on"
    public var scopes = ["openid", "email", "profile"]
    /// The ID token claim that lists the person's groups, for `roleMappings`.
    public var groupsClaim = "groups"
    /// Roles given by the ID token, on top of project memberships.
    public var roleMappings: [ClaimRoleMapping] = []
    /// A session unused this long ends.
    public var sessionIdleMinutes = 720
    /// A session ends this long after sign-in, however busy.
    public var sessionMaxHours = 168
    /// How long the provider may take to answer one call.
    public var providerTimeoutSeconds = 10

    public init() {}

    /// Whether sign-in with the provider is configured.
    public var isEnabled: Bool { !issuer.isEmpty }

    /// The roles `signIn.roleMappings` give a person (project or `*` → role), and whether they
    /// make an owner.
    func mappedRoles(email: String, groups: [String]) -> (roles: [String: String], owner: Bool) {
        var roles: [String: Role] = [:]
        var owner = false
        for mapping in roleMappings where mapping.matches(email: email, groups: groups) {
            owner = owner || mapping.owner == true
            for (project, name) in mapping.roles ?? [:] {
                guard let role = Role.projectRole(named: name) else { continue }
                roles[project] = max(roles[project] ?? role, role)
            }
        }
        return (roles.mapValues(\.description), owner)
    }

    func validate() throws {
        guard isEnabled else { return }
        guard let url = URL(string: issuer), ["https", "http"].contains(url.scheme ?? ""), url.host != nil else {
            throw ConfigurationError("signIn.issuer must be an http(s) URL, got '\(issuer)'")
        }
        guard !clientID.isEmpty else { throw ConfigurationError("signIn.clientID is required with signIn.issuer") }
        if !publicURL.isEmpty {
            guard let url = URL(string: publicURL), ["https", "http"].contains(url.scheme ?? ""), url.host != nil,
                  url.query == nil, !publicURL.hasSuffix("/") else {
                throw ConfigurationError("signIn.publicURL must be an http(s) URL without a trailing '/', got '\(publicURL)'")
            }
        }
        guard scopes.contains("openid") else { throw ConfigurationError("signIn.scopes must include 'openid'") }
        guard (1...525_600).contains(sessionIdleMinutes), (1...8_760).contains(sessionMaxHours) else {
            throw ConfigurationError("signIn.sessionIdleMinutes must be 1...525600 and signIn.sessionMaxHours 1...8760")
        }
        guard (1...120).contains(providerTimeoutSeconds) else {
            throw ConfigurationError("signIn.providerTimeoutSeconds must be 1...120")
        }
        for (index, mapping) in roleMappings.enumerated() {
            try mapping.validate(at: "signIn.roleMappings[\(index)]")
        }
    }
}

/// People whose ID token has an email in `emailDomain`, or `group` in its groups claim, hold
/// `roles` (project id, or `*` for every project → role) and, with `owner`, the whole server.
public struct ClaimRoleMapping: Sendable, Codable, Equatable {
    public var emailDomain: String?
    public var group: String?
    public var roles: [String: String]?
    public var owner: Bool?

    public init(emailDomain: String? = nil, group: String? = nil, roles: [String: String]? = nil, owner: Bool? = nil) {
        self.emailDomain = emailDomain
        self.group = group
        self.roles = roles
        self.owner = owner
    }

    func validate(at path: String) throws {
        guard (emailDomain == nil) != (group == nil) else {
            throw ConfigurationError("\(path) needs exactly one of 'emailDomain' and 'group'")
        }
        guard roles?.isEmpty == false || owner == true else { throw ConfigurationError("\(path) gives no 'roles' and no 'owner'") }
        for (project, role) in roles ?? [:] where Role.projectRole(named: role) == nil {
            throw ConfigurationError("\(path): the role '\(role)' on '\(project)' is not one of \(Role.projectRoleNames)")
        }
    }

    /// Whether a person with `email` in `groups` is meant.
    func matches(email: String, groups: [String]) -> Bool {
        if let emailDomain {
            return email.lowercased().hasSuffix("@" + emailDomain.lowercased())
        }
        return group.map(groups.contains) ?? false
    }
}
