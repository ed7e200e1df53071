package import ConfigCore
import ConfigStore
import Foundation

/// A person or a service account that tokens act for (docs/access.md).
package struct Principal: Codable, Sendable, Equatable {
    package enum Kind: String, Codable, Sendable {
        case person, service
    }

    /// `svc-…` for a service account, the email address for a person.
    package var id: String
    package var kind: Kind
    package var displayName: String
    var email: String?
    /// Holds every role on every project, and creates projects.
    package var owner: Bool
    var createTime: Timestamp

    package init(id: String, kind: Kind, displayName: String, email: String? = nil, owner: Bool, createTime: Timestamp) {
        self.id = id
        self.kind = kind
        self.displayName = displayName
        self.email = email
        self.owner = owner
        self.createTime = createTime
    }

    /// What versions it publishes record as `updateUser.email`.
    package var updateUser: String { email ?? id }
}

/// A principal's role on one project, and the roles it holds instead on some of the project's
/// environments (docs/access.md, "Roles per environment").
package struct Membership: Codable, Sendable, Equatable {
    package var principal: String
    var project: String
    /// A role name of `Role.projectRoles`.
    var role: String
    /// Environment id → the role name held on that environment's templates instead of `role`;
    /// nil for none.
    var environments: [String: String]?

    package init(principal: String, project: String, role: String, environments: [String: String]? = nil) {
        self.principal = principal
        self.project = project
        self.role = role
        self.environments = environments
    }

    /// Its record's id.
    var recordID: String { Self.recordID(project: project, principal: principal) }

    package static func recordID(project: String, principal: String) -> String { "\(project)\t\(principal)" }
}

/// A token a principal acts with: the secret is never stored, only its SHA-256.
package struct AccessToken: Codable, Sendable, Equatable {
    /// Also the second part of the secret (`rcs_pat_<id>_<random>`), which finds the record.
    package var id: String
    package var principal: String
    package var name: String
    var sha256: String
    package var createTime: Timestamp
    package var expireTime: Timestamp?
    package var revokeTime: Timestamp?
    /// Project → role: the token holds at most these (and never more than its principal); nil
    /// for all of the principal's roles.
    package var roles: [String: String]?

    package init(id: String, principal: String, name: String, sha256: String, createTime: Timestamp,
                 expireTime: Timestamp? = nil, revokeTime: Timestamp? = nil, roles: [String: String]? = nil) {
        self.id = id
        self.principal = principal
        self.name = name
        self.sha256 = sha256
        self.createTime = createTime
        self.expireTime = expireTime
        self.revokeTime = revokeTime
        self.roles = roles
    }

    /// `rcs_pat_<id>_<random>`.
    static let secrets = IdentifiedSecret(prefix: "rcs_pat_", idBytes: 6)

    /// A new token's id and secret.
    package static func mint() -> (id: String, secret: String) { secrets.mint() }

    /// The id named by a presented secret, if it has the form of one.
    static func id(inSecret secret: String) -> String? { secrets.id(in: secret) }

    func isUsable(at now: Date) -> Bool {
        revokeTime == nil && (expireTime.map { now < $0.date } ?? true)
    }
}

/// The records, decoded: what `AccessControl` looks tokens up in.
package struct StoredAccess: Sendable {
    package var principals: [String: Principal] = [:]
    /// Principal → project → role.
    package var roles: [String: [String: Role]] = [:]
    /// Principal → project → environment → the role held there instead.
    package var environmentRoles: [String: [String: [EnvironmentID: Role]]] = [:]
    package var tokens: [String: AccessToken] = [:]

    init() {}

    /// A record this build cannot read (a newer build's, or damaged) grants nothing: skipped.
    init(_ records: [StoredAccessRecord]) {
        let decoder = JSONDecoder()
        for record in records {
            let data = Data(record.record)
            switch record.kind {
            case .principal:
                if let principal = try? decoder.decode(Principal.self, from: data) { principals[principal.id] = principal }
            case .membership:
                if let membership = try? decoder.decode(Membership.self, from: data), let role = Role(name: membership.role) {
                    roles[membership.principal, default: [:]][membership.project] = role
                    for (name, roleName) in membership.environments ?? [:] {
                        guard let environment = EnvironmentID(rawValue: name), let held = Role(name: roleName) else { continue }
                        environmentRoles[membership.principal, default: [:]][membership.project, default: [:]][environment] = held
                    }
                }
            case .token:
                if let token = try? decoder.decode(AccessToken.self, from: data) { tokens[token.id] = token }
            case .session:
                // Looked up one at a time (`SessionCache`), never loaded.
                continue
            }
        }
    }

    /// The roles of `held` (nil: an owner's) that a token limited to `limits` keeps: per project,
    /// the lower of the two.
    static func narrowed(_ held: [String: Role]?, to limits: [String: String]) -> [String: Role] {
        var kept: [String: Role] = [:]
        for (project, name) in limits {
            guard let limit = Role(name: name), let role = held == nil ? .owner : held?[project] else { continue }
            kept[project] = min(role, limit)
        }
        return kept
    }

    /// The identity a usable token acts as; nil for an unknown, revoked or expired one.
    func identity(forTokenID id: String, now: Date) -> (token: AccessToken, identity: AccessControl.AdminIdentity)? {
        guard let token = tokens[id], token.isUsable(at: now), let principal = principals[token.principal] else { return nil }
        let held = principal.owner ? nil : roles[principal.id] ?? [:]
        var environments = environmentRoles[principal.id] ?? [:]
        if let limits = token.roles {
            // A limited token holds on an environment at most its limit on the project.
            for project in environments.keys {
                guard let limit = limits[project].flatMap(Role.init(name:)) else {
                    environments[project] = nil
                    continue
                }
                environments[project] = environments[project]?.mapValues { min($0, limit) }
            }
        }
        let identity = AccessControl.AdminIdentity(name: principal.updateUser, id: principal.id,
                                                   roles: token.roles.map { Self.narrowed(held, to: $0) } ?? held,
                                                   environmentRoles: principal.owner ? [:] : environments)
        return (token, identity)
    }

    /// The identity of a usable session: its principal's memberships, raised by the roles its
    /// ID token gave; nil for an ended or idle one, or one whose principal is gone.
    func identity(for session: ConsoleSession, now: Date, idle: TimeInterval) -> AccessControl.AdminIdentity? {
        guard session.isUsable(at: now, idle: idle), let principal = principals[session.principal] else { return nil }
        var held = roles[principal.id] ?? [:]
        for (project, name) in session.claimRoles {
            guard let role = Role.projectRole(named: name) else { continue }
            held[project] = max(held[project] ?? role, role)
        }
        let owner = principal.owner || session.claimOwner
        return AccessControl.AdminIdentity(name: principal.updateUser, id: principal.id, roles: owner ? nil : held,
                                           environmentRoles: owner ? [:] : environmentRoles[principal.id] ?? [:], sessionID: session.id)
    }
}
