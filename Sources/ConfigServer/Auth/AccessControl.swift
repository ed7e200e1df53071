import Foundation
import Synchronization

/// Who may do what: admin tokens for the management API, per-project API keys for fetch and
/// real-time. Secrets are kept only as SHA-256 digests and compared in constant time.
final class AccessControl: Sendable {
    struct AdminIdentity: Sendable, Equatable {
        /// Recorded as the `updateUser` of what this token publishes.
        let name: String
    }

    private let adminDigests: [(digest: SecretDigest, identity: AdminIdentity)]
    /// Project id → digests of its API keys.
    private let apiKeyDigests = Mutex<[String: [SecretDigest]]>([:])

    init(adminTokens: [AdminTokenDeclaration]) {
        adminDigests = adminTokens.compactMap { declaration in
            if let token = declaration.token { return (SecretDigest(secret: token), AdminIdentity(name: declaration.name)) }
            if let hex = declaration.sha256, let digest = SecretDigest(hex: hex) {
                return (digest, AdminIdentity(name: declaration.name))
            }
            return nil
        }
    }

    var hasAdminTokens: Bool { !adminDigests.isEmpty }

    /// The identity behind a bearer token, or nil. Every configured token is compared, so the
    /// time taken does not tell which one nearly matched.
    func admin(bearer token: String) -> AdminIdentity? {
        let presented = SecretDigest(secret: token)
        var found: AdminIdentity?
        for entry in adminDigests where entry.digest.matches(presented) {
            found = found ?? entry.identity
        }
        return found
    }

    func setAPIKeyDigests(_ digests: [SecretDigest], project: String) {
        apiKeyDigests.withLock { $0[project] = digests }
    }

    func addAPIKeyDigest(_ digest: SecretDigest, project: String) {
        apiKeyDigests.withLock { $0[project, default: []].append(digest) }
    }

    /// Whether `key` is one of `project`'s API keys.
    func isValidAPIKey(_ key: String, project: String) -> Bool {
        let presented = SecretDigest(secret: key)
        return apiKeyDigests.withLock { keys in
            var valid = false
            for digest in keys[project] ?? [] where digest.matches(presented) { valid = true }
            return valid
        }
    }
}
