private import CLibCrypto
import Foundation

/// Standard Webhooks signing (standardwebhooks.com, "Signature scheme"): each secret is
/// `whsec_` and the base64 of its key; a message's signature is `v1,` and the base64
/// HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`; several secrets (during a
/// rotation's overlap) give several signatures, separated by spaces.
enum WebhookSignature {
    static let secretPrefix = "whsec_"

    /// A new secret: 32 random bytes (the scheme asks for 24 to 64).
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return secretPrefix + Data(key).base64EncodedString()
    }

    /// The HMAC key of a secret, nil when it is not `whsec_` and base64.
    static func key(of secret: String) -> [UInt8]? {
        guard secret.hasPrefix(secretPrefix), let key = Data(base64Encoded: String(secret.dropFirst(secretPrefix.count))),
              !key.isEmpty else { return nil }
        return Array(key)
    }

    /// `v1,<base64>` for `body` sent as message `id` at `timestamp` (seconds since the epoch).
    static func signature(id: String, timestamp: Int64, body: [UInt8], secret: String) -> String? {
        guard let key = key(of: secret) else { return nil }
        let signed = Array("\(id).\(timestamp).".utf8) + body
        var digest = [UInt8](repeating: 0, count: 32)
        let ok = key.withUnsafeBufferPointer { key in
            signed.withUnsafeBufferPointer { data in
                digest.withUnsafeMutableBufferPointer {
                    rcs_hmac_sha256(key.baseAddress, key.count, data.baseAddress, data.count, $0.baseAddress)
                }
            }
        }
        return ok == 1 ? "v1," + Data(digest).base64EncodedString() : nil
    }

    /// The three headers of a message: its id, its time, and one signature per secret.
    static func headers(id: String, timestamp: Int64, body: [UInt8], secrets: [String]) -> [String: String] {
        let signatures = secrets.compactMap { signature(id: id, timestamp: timestamp, body: body, secret: $0) }
        return ["webhook-id": id, "webhook-timestamp": "\(timestamp)", "webhook-signature": signatures.joined(separator: " ")]
    }
}
