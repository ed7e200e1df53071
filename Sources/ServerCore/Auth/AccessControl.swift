package import ConfigCore
package import Foundation
import Synchronization

/// Who may do what: admin tokens for the management API, per-project API keys for fetch and
/// real-time (`ClientKeyTable`). Secrets are configured and stored only as SHA-256 digests and
/// compared in constant time. Admin tokens are never remembered.
package final class AccessControl: Sendable {
    package struct AdminIdentity: Sendable, Equatable {
        /// Recorded as the `updateUser` of what this token publishes.
        package let name: String
        /// The principal's id, or `token:<name>` for a token of the config file.
        package let id: String
        /// Project id (or `*`, every project) → role; nil for an owner of the whole server.
        package var roles: [String: Role]? = nil
        /// Project id → environment → the role held on that environment's templates instead of
        /// the project's role.
        package var environmentRoles: [String: [EnvironmentID: Role]] = [:]
        /// The console session it signed in with; nil for a token.
        package var sessionID: String? = nil

        /// The role held on `project` (an owner holds `owner` everywhere), nil for none.
        package func role(on project: String) -> Role? {
            guard let roles else { return .owner }
            guard let everywhere = roles["*"] else { return roles[project] }
            return max(roles[project] ?? everywhere, everywhere)
        }

        /// The role held on the templates of `environment` of `project`: the membership's role
        /// there when it names one, else the role on the project.
        package func role(on project: String, in environment: EnvironmentID) -> Role? {
            guard roles != nil, let held = environmentRoles[project]?[environment] else { return role(on: project) }
            return held
        }

        package var isOwner: Bool { roles == nil }
    }

    private let adminDigests: [(digest: SecretDigest, identity: AdminIdentity)]
    /// Whether fetch and real-time need an API key (`fetch.requireAPIKey`).
    let apiKeyRequired: Bool
    /// The projects' client API keys.
    let clientKeys = ClientKeyTable()
    /// The principals, memberships and tokens of the store (API-made), read by `ControlPlane`.
    private let stored = Mutex(StoredAccess())
    /// The console sessions looked up lately.
    let sessions: SessionCache
    package let clock: any WallClock

    /// A console session unused this long has ended (`signIn.sessionIdleMinutes`).
    package let sessionIdle: TimeInterval

    package init(adminTokens: [AdminTokenDeclaration], apiKeyRequired: Bool = true, sessionIdle: TimeInterval = 720 * 60,
         clock: any WallClock = SystemClock()) {
        self.apiKeyRequired = apiKeyRequired
        self.sessionIdle = sessionIdle
        self.clock = clock
        sessions = SessionCache(idle: sessionIdle)
        adminDigests = adminTokens.compactMap { declaration in
            // Validated with the configuration: every role name is known.
            let roles = declaration.roles.map { $0.compactMapValues(Role.init(name:)) }
            let identity = AdminIdentity(name: declaration.name, id: "token:" + declaration.name, roles: roles)
            if let token = declaration.token { return (SecretDigest(secret: token), identity) }
            if let hex = declaration.sha256, let digest = SecretDigest(hex: hex) { return (digest, identity) }
            return nil
        }
    }

    /// Replaces what the store's records say (after every change of them).
    func setStoredAccess(_ access: StoredAccess) {
        stored.withLock { $0 = access }
    }

    /// The principals, memberships and tokens last read from the store.
    package var storedAccess: StoredAccess { stored.withLock { $0 } }

    /// The identity behind a bearer token, or nil. A token made through the API is found by the
    /// id its secret carries, then its digest compared in constant time; every configured token
    /// is compared, so the time taken does not tell which one nearly matched.
    func admin(bearer token: String) -> AdminIdentity? {
        let presented = SecretDigest(secret: token)
        if let id = AccessToken.id(inSecret: token) {
            guard let (record, identity) = stored.withLock({ $0.identity(forTokenID: id, now: clock.now) }),
                  let digest = SecretDigest(hex: record.sha256), digest.matches(presented) else { return nil }
            return identity
        }
        var found: AdminIdentity?
        for entry in adminDigests where entry.digest.matches(presented) {
            found = found ?? entry.identity
        }
        return found
    }

    /// The session behind a console cookie's secret and who it is, or nil for an unknown, ended
    /// or idle one; the digest is compared in constant time. The session is the one this worker
    /// last read (`ReadYourWrites` reads it first when that may be out of date).
    package func admin(session secret: String) -> (session: ConsoleSession, identity: AdminIdentity)? {
        guard let id = ConsoleSession.id(inSecret: secret), let session = sessions.entry(id)?.session,
              let identity = stored.withLock({ $0.identity(for: session, now: clock.now, idle: sessionIdle) }),
              let digest = SecretDigest(hex: session.sha256), digest.matches(SecretDigest(secret: secret)) else { return nil }
        return (session, identity)
    }

    /// The project and environment `key` serves, or nil (OFREP's requests name no project).
    package func owner(ofClientKey key: String) -> ClientKeyTable.Owner? {
        clientKeys.owner(ofKey: key)
    }

    /// Byte equality whose time depends only on the lengths, not on where the texts differ.
    package static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs, rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                guard left.count == right.count else { return false }
                var difference: UInt8 = 0
                for index in left.indices { difference |= left[index] ^ right[index] }
                return difference == 0
            }
        }
    }
}
