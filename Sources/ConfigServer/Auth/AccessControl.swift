import Crypto
import Foundation
import Synchronization

/// Who may do what: admin tokens for the management API, per-project API keys for fetch and
/// real-time. Secrets are kept only as SHA-256 digests and compared in constant time.
final class AccessControl: Sendable {
    struct AdminIdentity: Sendable, Equatable {
        /// Recorded as the `updateUser` of what this token publishes.
        let name: String
    }

    private let adminDigests: [(digest: [UInt8], identity: AdminIdentity)]
    /// Project id → digests of its API keys.
    private let apiKeyDigests = Mutex<[String: [[UInt8]]]>([:])

    init(adminTokens: [AdminTokenDeclaration]) {
        adminDigests = adminTokens.compactMap { declaration in
            if let token = declaration.token { return (Self.digest(token), AdminIdentity(name: declaration.name)) }
            if let hex = declaration.sha256, let bytes = Self.bytes(fromHex: hex) {
                return (bytes, AdminIdentity(name: declaration.name))
            }
            return nil
        }
    }

    var hasAdminTokens: Bool { !adminDigests.isEmpty }

    /// The identity behind a bearer token, or nil. Every configured token is compared, so the
    /// time taken does not tell which one nearly matched.
    func admin(bearer token: String) -> AdminIdentity? {
        let presented = Self.digest(token)
        var found: AdminIdentity?
        for entry in adminDigests where Self.constantTimeEqual(entry.digest, presented) {
            found = found ?? entry.identity
        }
        return found
    }

    func setAPIKeyDigests(_ digests: [[UInt8]], project: String) {
        apiKeyDigests.withLock { $0[project] = digests }
    }

    func addAPIKeyDigest(_ digest: [UInt8], project: String) {
        apiKeyDigests.withLock { $0[project, default: []].append(digest) }
    }

    /// Whether `key` is one of `project`'s API keys.
    func isValidAPIKey(_ key: String, project: String) -> Bool {
        let presented = Self.digest(key)
        let digests = apiKeyDigests.withLock { $0[project] ?? [] }
        var valid = false
        for digest in digests where Self.constantTimeEqual(digest, presented) { valid = true }
        return valid
    }

    static func digest(_ secret: String) -> [UInt8] {
        var secret = secret
        return secret.withUTF8 { bytes in
            var hasher = SHA256()
            hasher.update(bufferPointer: UnsafeRawBufferPointer(bytes))
            return Array(hasher.finalize())
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func bytes(fromHex hex: String) -> [UInt8]? {
        let characters = Array(hex.lowercased().utf8)
        guard characters.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: characters[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// Equal-length digests compared without an early exit.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
