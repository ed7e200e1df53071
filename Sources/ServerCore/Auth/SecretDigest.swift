private import CLibCrypto

/// The SHA-256 of a secret (an admin token or API key), held in four words so computing and
/// comparing one allocates nothing: it runs on every fetch.
package struct SecretDigest: Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    package init(secret: String) {
        var secret = secret
        var digest = [UInt8](repeating: 0, count: 32)
        secret.withUTF8 { bytes in digest.withUnsafeMutableBufferPointer { rcs_sha256(bytes.baseAddress, bytes.count, $0.baseAddress) } }
        words = digest.withUnsafeBytes(Self.words)
    }

    /// From 64 hex digits (either case), as stored and as configured with `sha256`.
    init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        for index in 0..<32 {
            guard let high = Self.hexValue(digits[2 * index]), let low = Self.hexValue(digits[2 * index + 1]) else { return nil }
            bytes[index] = high << 4 | low
        }
        words = bytes.withUnsafeBytes(Self.words)
    }

    private static func words(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64, UInt64, UInt64) {
        (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
         bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
    }

    /// The 32 bytes.
    package var bytes: [UInt8] { withUnsafeBytes(of: words, Array.init) }

    /// Lowercase hex, as the store keeps it.
    package var hex: String {
        withUnsafeBytes(of: words) { bytes in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
        }
    }

    /// Equality without an early exit, so the time taken tells nothing of where they differ.
    func matches(_ other: SecretDigest) -> Bool {
        let difference = (words.0 ^ other.words.0) | (words.1 ^ other.words.1) | (words.2 ^ other.words.2) | (words.3 ^ other.words.3)
        return difference == 0
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
