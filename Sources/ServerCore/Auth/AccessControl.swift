package import ConfigCore
package import Foundation
import Synchronization

/// Who may do what: admin tokens for the management API, per-project API keys for fetch and
/// real-time. Secrets are configured and stored only as SHA-256 digests and compared in
/// constant time.
///
/// The API keys each project last accepted are remembered in clear (they ship inside every app build and
/// arrive in clear on every fetch) so that a repeat presentation is one constant-time byte
/// comparison instead of a SHA-256: fetch is the hot path and nearly all of its requests carry
/// one of a few keys. Admin tokens are never remembered.
package final class AccessControl: Sendable {
    package struct AdminIdentity: Sendable, Equatable {
        /// Recorded as the `updateUser` of what this token publishes.
        package let name: String
        /// The principal's id, or `token:<name>` for a token of the config file.
        package let id: String
        /// Project id (or `*`, every project) → role; nil for an owner of the whole server.
        package var roles: [String: Role]? = nil
        /// The console session it signed in with; nil for a token.
        package var sessionID: String? = nil

        /// The role held on `project` (an owner holds `owner` everywhere), nil for none.
        package func role(on project: String) -> Role? {
            guard let roles else { return .owner }
            guard let everywhere = roles["*"] else { return roles[project] }
            return max(roles[project] ?? everywhere, everywhere)
        }

        package var isOwner: Bool { roles == nil }
    }

    private let adminDigests: [(digest: SecretDigest, identity: AdminIdentity)]
    /// Whether fetch and real-time need an API key (`fetch.requireAPIKey`).
    let apiKeyRequired: Bool
    private struct APIKeys: Sendable {
        /// Project id → digests of its API keys.
        var digests: [String: [SecretDigest]] = [:]
        /// Project id → its keys accepted lately, most recent last; a project's are forgotten
        /// whenever its keys are replaced.
        var accepted: [String: [String]] = [:]
        /// Keys accepted lately without a project named (OFREP's), by their seeded hash, with
        /// the project each belongs to; all are forgotten whenever any project's keys change,
        /// since a key remembered for one project may now be another's too, and so no project's.
        var owners: [Int: [(key: String, project: String)]] = [:]
        var ownerCount = 0

        mutating func forgetOwners() {
            owners = [:]
            ownerCount = 0
        }
    }

    /// Keys remembered with their project: enough for every project's builds in the field.
    private static let rememberedOwners = 4096

    /// Keys remembered per project: enough for the builds of an app in the field.
    private static let rememberedKeysPerProject = 4
    private let apiKeys = Mutex(APIKeys())
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

    func setAPIKeyDigests(_ digests: [SecretDigest], project: String) {
        apiKeys.withLock { keys in
            keys.digests[project] = digests
            keys.accepted[project] = nil
            keys.forgetOwners()
        }
    }

    func addAPIKeyDigest(_ digest: SecretDigest, project: String) {
        apiKeys.withLock { keys in
            // A key added revokes none: what was accepted stays valid.
            keys.digests[project, default: []].append(digest)
            keys.forgetOwners()
        }
    }

    /// Whether `key` is one of `project`'s API keys.
    func isValidAPIKey(_ key: String, project: String) -> Bool {
        if apiKeys.withLock({ Self.contains(key, in: $0.accepted[project] ?? []) }) { return true }
        let presented = SecretDigest(secret: key)
        return apiKeys.withLock { keys in
            var valid = false
            for digest in keys.digests[project] ?? [] where digest.matches(presented) { valid = true }
            // Another thread may have remembered it meanwhile.
            if valid, !Self.contains(key, in: keys.accepted[project] ?? []) {
                var accepted = keys.accepted[project] ?? []
                if accepted.count >= Self.rememberedKeysPerProject { accepted.removeFirst() }
                accepted.append(key)
                keys.accepted[project] = accepted
            }
            return valid
        }
    }

    /// The project `key` is an API key of, or nil: OFREP requests name no project, their key
    /// does, so a key of two projects is no project's rather than whichever the table lists
    /// last (the configuration refuses one; this holds meanwhile). A key seen lately is found by
    /// its hash (seeded per process, so a client cannot aim at a bucket) and confirmed in
    /// constant time; another is digested once and compared with every project's digests.
    package func project(forClientKey key: String) -> String? {
        let hash = key.hashValue
        let remembered = apiKeys.withLock { keys in
            var found: String?
            for entry in keys.owners[hash] ?? [] where Self.constantTimeEqual(entry.key, key) { found = entry.project }
            return found
        }
        if let remembered { return remembered }
        let presented = SecretDigest(secret: key)
        return apiKeys.withLock { keys in
            var found: [String] = []
            for (project, digests) in keys.digests {
                for digest in digests where digest.matches(presented) { found.append(project) }
            }
            guard let project = found.first, found.allSatisfy({ $0 == project }) else { return nil }
            if keys.ownerCount >= Self.rememberedOwners { keys.forgetOwners() }
            // Another thread may have remembered it meanwhile.
            if !(keys.owners[hash] ?? []).contains(where: { $0.key == key }) {
                keys.owners[hash, default: []].append((key, project))
                keys.ownerCount += 1
            }
            return project
        }
    }

    /// Whether `key` is among `keys`, every one compared in constant time.
    private static func contains(_ key: String, in keys: [String]) -> Bool {
        var found = false
        for candidate in keys where constantTimeEqual(candidate, key) { found = true }
        return found
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
