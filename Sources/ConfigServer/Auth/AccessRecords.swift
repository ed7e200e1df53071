import ConfigCore
import ConfigStore
import Foundation

/// A person or a service account that tokens act for (docs/access.md).
struct Principal: Codable, Sendable, Equatable {
    enum Kind: String, Codable, Sendable {
        case person, service
    }

    /// `svc-…` for a service account, the email address for a person.
    var id: String
    var kind: Kind
    var displayName: String
    var email: String?
    /// Holds every role on every project, and creates projects.
    var owner: Bool
    var createTime: Timestamp

    /// What versions it publishes record as `updateUser.email`.
    var updateUser: String { email ?? id }
}

/// A principal's role on one project.
struct Membership: Codable, Sendable, Equatable {
    var principal: String
    var project: String
    /// A role name of `Role.projectRoles`.
    var role: String

    /// Its record's id.
    var recordID: String { Self.recordID(project: project, principal: principal) }

    static func recordID(project: String, principal: String) -> String { "\(project)\t\(principal)" }
}

/// A token a principal acts with: the secret is never stored, only its SHA-256.
struct AccessToken: Codable, Sendable, Equatable {
    /// Also the second part of the secret (`rcs_pat_<id>_<random>`), which finds the record.
    var id: String
    var principal: String
    var name: String
    var sha256: String
    var createTime: Timestamp
    var expireTime: Timestamp?
    var revokeTime: Timestamp?
    /// Project → role: the token holds at most these (and never more than its principal); nil
    /// for all of the principal's roles.
    var roles: [String: String]?

    /// `rcs_pat_<id>_<random>`.
    static let secrets = IdentifiedSecret(prefix: "rcs_pat_", idBytes: 6)

    /// A new token's id and secret.
    static func mint() -> (id: String, secret: String) { secrets.mint() }

    /// The id named by a presented secret, if it has the form of one.
    static func id(inSecret secret: String) -> String? { secrets.id(in: secret) }

    func isUsable(at now: Date) -> Bool {
        revokeTime == nil && (expireTime.map { now < $0.date } ?? true)
    }
}

/// The records, decoded: what `AccessControl` looks tokens up in.
struct StoredAccess: Sendable {
    var principals: [String: Principal] = [:]
    /// Principal → project → role.
    var roles: [String: [String: Role]] = [:]
    var tokens: [String: AccessToken] = [:]

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
        let identity = AccessControl.AdminIdentity(name: principal.updateUser, id: principal.id,
                                                   roles: token.roles.map { Self.narrowed(held, to: $0) } ?? held)
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
        return AccessControl.AdminIdentity(name: principal.updateUser, id: principal.id,
                                           roles: principal.owner || session.claimOwner ? nil : held, sessionID: session.id)
    }
}
