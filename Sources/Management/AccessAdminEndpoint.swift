package import ConfigCore
package import ConfigStore
import Foundation
import HTTP1
package import ServerCore

/// Principals, their roles on projects, and their tokens (docs/access.md). Every change is
/// written to the store, then read back by every worker and node before it answers again.
package struct AccessAdminEndpoint: Sendable {
    let store: any AccessStore
    let access: AccessControl
    /// The projects' environments, which memberships may name.
    let projects: ProjectDirectory
    let controlPlane: ControlPlane
    let clock: any WallClock

    package init(store: any AccessStore, access: AccessControl, projects: ProjectDirectory, controlPlane: ControlPlane,
                 clock: any WallClock) {
        self.store = store
        self.access = access
        self.projects = projects
        self.controlPlane = controlPlane
        self.clock = clock
    }

    /// `GET /v1/me`: who the credentials are, and the role they hold on each project (the
    /// console offers only what they allow).
    func describe(_ exchange: Exchange, _ identity: AccessControl.AdminIdentity) {
        struct Me: Encodable {
            let id: String
            let name: String
            /// The principal's display name (a person's, from sign-in), when there is one.
            let displayName: String?
            let owner: Bool
            /// Project id (or `*`: every project) → role.
            let roles: [String: String]
            /// Project id → environment → the role held on its templates instead.
            let environmentRoles: [String: [String: String]]
            /// Whether these credentials are a console session (signed in through the provider).
            let session: Bool
        }
        let roles = (identity.roles ?? [:]).mapValues(\.description)
        let environmentRoles = identity.environmentRoles.mapValues { held in
            Dictionary(uniqueKeysWithValues: held.map { environment, role in (environment.rawValue, role.description) })
        }
        exchange.respond(.json(Self.encode(Me(
            id: identity.id, name: identity.name, displayName: access.storedAccess.principals[identity.id]?.displayName,
            owner: identity.isOwner, roles: roles, environmentRoles: environmentRoles, session: identity.sessionID != nil))))
    }

    /// `POST /v1/principals` `{"kind": "service"|"person", "displayName", "email", "id", "owner"}`:
    /// an owner adds anyone; a project's admin, service accounts that own nothing.
    func createPrincipal(_ exchange: Exchange, by identity: AccessControl.AdminIdentity) throws {
        let body = try ManagementBody(exchange.request.body, fields: ["kind", "displayName", "email", "id", "owner"])
        guard let kind = Principal.Kind(rawValue: try body.string("kind") ?? "service") else {
            throw APIError.badRequest("kind must be 'service' or 'person'.")
        }
        let displayName = try Self.text(body.string("displayName"), field: "displayName", limit: 100)
        let email = try body.string("email").map { email in
            guard UpdateUserEmail.isPersonAddress(email) else {
                throw APIError.badRequest("email must be an email address, got '\(email)'.")
            }
            return email
        }
        let id: String
        switch kind {
        case .person:
            guard let email else { throw APIError.badRequest("A person needs an 'email'.") }
            id = email
        case .service:
            id = try body.string("id").map { try Self.serviceID($0) } ?? Self.serviceID(from: displayName)
        }
        guard access.storedAccess.principals[id] == nil else { throw APIError(409, "Principal '\(id)' already exists.") }
        let owner = try body.bool("owner") ?? false
        guard identity.isOwner || (kind == .service && !owner) else {
            throw APIError(403, "A project's admin adds service accounts only; people and owners are added by an owner "
                + "(a person also appears by signing in).")
        }
        let principal = Principal(id: id, kind: kind, displayName: displayName, email: email, owner: owner,
                                  createTime: Timestamp(clock.now))
        let record = Self.encode(principal)
        exchange.answerFromStore { [self] in
            try store.put(.principal, id: id, record: record)
            try changed()
            return .json(record)
        }
    }

    /// `GET /v1/principals`.
    func listPrincipals(_ exchange: Exchange) throws {
        let principals = access.storedAccess.principals.values.sorted { $0.id < $1.id }
        exchange.respond(.json(Self.encode(["principals": principals])))
    }

    /// `GET /v1/projects/{p}/members`: each principal's role on the project, and those it holds
    /// instead on some environments.
    func listMembers(_ exchange: Exchange, project: StoredProject) throws {
        let stored = access.storedAccess
        let members = stored.roles.compactMap { principal, projects in
            projects[project.id].map { role -> Membership in
                let environments = stored.environmentRoles[principal]?[project.id].map { held in
                    Dictionary(uniqueKeysWithValues: held.map { environment, role in (environment.rawValue, role.description) })
                }
                return Membership(principal: principal, project: project.id, role: role.description, environments: environments)
            }
        }.sorted { $0.principal < $1.principal }
        exchange.respond(.json(Self.encode(["members": members])))
    }

    /// `PUT /v1/projects/{p}/members/{principal}` `{"role": …}` or `DELETE`.
    func setMember(_ exchange: Exchange, project: StoredProject, principal: String) throws {
        guard access.storedAccess.principals[principal] != nil else {
            throw APIError.notFound("No principal '\(principal)'.")
        }
        let recordID = Membership.recordID(project: project.id, principal: principal)
        guard exchange.request.head.method == .put else {
            return exchange.answerFromStore { [self] in
                guard try store.delete(.membership, id: recordID) else {
                    throw APIError.notFound("'\(principal)' holds no role on project '\(project.id)'.")
                }
                try changed()
                return HTTPResponse(status: 204)
            }
        }
        let body = try ManagementBody(exchange.request.body, fields: ["role", "environments"])
        guard let role = try body.string("role").flatMap(Role.projectRole(named:)) else {
            throw APIError.badRequest("role must be one of \(Role.projectRoleNames).")
        }
        let environments = try body.stringMap("environments", describing: "environment ids and role names")
        let known = Set(projects.environments(of: project.id).map(\.id.rawValue) + [EnvironmentID.production.rawValue])
        for (environment, name) in environments ?? [:] {
            guard known.contains(environment) else {
                throw APIError.badRequest("Project '\(project.id)' has no environment '\(environment)'.")
            }
            guard Role.projectRole(named: name) != nil else {
                throw APIError.badRequest("The role on '\(environment)' must be one of \(Role.projectRoleNames), got '\(name)'.")
            }
        }
        let record = Self.encode(Membership(principal: principal, project: project.id, role: role.description,
                                            environments: environments?.isEmpty == false ? environments : nil))
        exchange.answerFromStore { [self] in
            try store.put(.membership, id: recordID, record: record)
            try changed()
            return .json(record)
        }
    }

    /// `POST /v1/tokens` `{"principal", "name", "expireTime", "roles"}`: the secret is in this
    /// answer only; `roles` (project → role) limits the token below its principal's roles. A
    /// project's admin makes tokens for service accounts, limited to projects it administers.
    func createToken(_ exchange: Exchange, by identity: AccessControl.AdminIdentity) throws {
        let body = try ManagementBody(exchange.request.body, fields: ["principal", "name", "expireTime", "roles"])
        guard let principal = try body.string("principal"), access.storedAccess.principals[principal] != nil else {
            throw APIError.notFound("A token needs the 'principal' it acts for, an existing one.")
        }
        let name = try Self.text(body.string("name"), field: "name", limit: 100)
        let expireTime = try body.string("expireTime").map { text in
            guard let time = Timestamp(rfc3339: text), time.date > clock.now else {
                throw APIError.badRequest("expireTime must be an RFC 3339 time in the future, got '\(text)'.")
            }
            return time
        }
        let roles = try body.stringMap("roles", describing: "an object of project → role").map { roles in
            for (project, role) in roles where Role.projectRole(named: role) == nil {
                throw APIError.badRequest("roles: '\(role)' on project '\(project)' is not one of "
                    + "\(Role.projectRoleNames).")
            }
            return roles
        }
        if !identity.isOwner {
            guard access.storedAccess.principals[principal].map({ $0.kind == .service && !$0.owner }) == true else {
                throw APIError(403, "A project's admin makes tokens for service accounts only, not for '\(principal)'.")
            }
            guard let roles, !roles.isEmpty, Self.administers(identity, every: roles.keys) else {
                throw APIError(403, "A project's admin makes tokens limited by 'roles' to projects it administers.")
            }
        }
        let (id, secret) = AccessToken.mint()
        let token = AccessToken(id: id, principal: principal, name: name, sha256: SecretDigest(secret: secret).hex,
                                createTime: Timestamp(clock.now), expireTime: expireTime, revokeTime: nil, roles: roles)
        let record = Self.encode(token)
        let answer = Self.encode(TokenAnswer(token, secret: secret))
        exchange.answerFromStore { [self] in
            try store.put(.token, id: id, record: record)
            try changed()
            return .json(answer)
        }
    }

    /// `GET /v1/tokens`: every token `identity` may revoke, without its secret or hash.
    func listTokens(_ exchange: Exchange, visibleTo identity: AccessControl.AdminIdentity) throws {
        let tokens = access.storedAccess.tokens.values.filter { Self.mayManage($0, identity) }
            .sorted { $0.createTime < $1.createTime }.map { TokenAnswer($0, secret: nil) }
        exchange.respond(.json(Self.encode(["tokens": tokens])))
    }

    /// `DELETE /v1/tokens/{id}`: revoked on every worker and node before the answer.
    func revokeToken(_ exchange: Exchange, id: String, by identity: AccessControl.AdminIdentity) throws {
        guard var token = access.storedAccess.tokens[id], Self.mayManage(token, identity) else {
            throw APIError.notFound("No token '\(id)' that you may revoke.")
        }
        guard token.revokeTime == nil else { return exchange.respond(HTTPResponse(status: 204)) }
        token.revokeTime = Timestamp(clock.now)
        let record = Self.encode(token)
        exchange.answerFromStore { [self] in
            try store.put(.token, id: id, record: record)
            try changed()
            return HTTPResponse(status: 204)
        }
    }

    /// An owner manages every token; a project's admin those limited to projects it administers.
    private static func mayManage(_ token: AccessToken, _ identity: AccessControl.AdminIdentity) -> Bool {
        identity.isOwner || token.roles.map { !$0.isEmpty && administers(identity, every: $0.keys) } == true
    }

    private static func administers(_ identity: AccessControl.AdminIdentity, every projects: some Sequence<String>) -> Bool {
        projects.allSatisfy { project in project != "*" && identity.role(on: project).map { $0 >= .admin } == true }
    }

    /// After a commit, before the answer: every worker reads the records again before it
    /// answers (read-your-writes), this one at once.
    private func changed() throws {
        try controlPlane.committed(.access)
    }

    /// A token as the API shows it: never its hash; its secret only when it was just made.
    private struct TokenAnswer: Encodable {
        let id: String
        let principal: String
        let name: String
        let createTime: Timestamp
        let expireTime: Timestamp?
        let revokeTime: Timestamp?
        let roles: [String: String]?
        let token: String?

        init(_ token: AccessToken, secret: String?) {
            id = token.id
            principal = token.principal
            name = token.name
            createTime = token.createTime
            expireTime = token.expireTime
            revokeTime = token.revokeTime
            roles = token.roles
            self.token = secret
        }
    }

    private static func text(_ value: String?, field: String, limit: Int) throws -> String {
        guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else { throw APIError.badRequest("\(field) is required.") }
        guard value.count <= limit else { throw APIError.badRequest("\(field) must be at most \(limit) characters.") }
        return value
    }

    /// `svc-` and lower-case letters, digits and `-`, at most 64 characters.
    private static func serviceID(_ id: String) throws -> String {
        guard id.hasPrefix("svc-"), (5...64).contains(id.count),
              id.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
        else { throw APIError.badRequest("A service account's id is 'svc-' then lower-case letters, digits and '-', at most 64 characters; got '\(id)'.") }
        return id
    }

    private static func serviceID(from displayName: String) throws -> String {
        let slug = String(displayName.lowercased().unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "-" })
        return try serviceID("svc-" + slug.prefix(60))
    }

    /// Records and answers are coded as templates are: sorted keys, equal values, equal bytes.
    private static func encode(_ value: some Encodable) -> [UInt8] {
        Array(TemplateJSON.encode(value))
    }
}
