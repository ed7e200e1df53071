import Crypto

/// Assigns a client to a stable bucket for percent conditions, exactly as the Firebase Admin
/// SDKs do for server templates (protocol notes §5.3), so a client keeps its bucket when moving
/// between Firebase and this server.
///
/// Algorithm: hash the UTF-8 bytes of `seed + "." + randomizationId` (just `randomizationId`
/// when the seed is empty) with SHA-256, read the 32-byte digest as an unsigned big-endian
/// integer and take it modulo 100 000 000.
public enum PercentBucket {
    /// Number of buckets: one per micro-percent (a millionth of a percent), so 100 % is
    /// `microPercentScale`.
    public static let microPercentScale: UInt64 = 100_000_000

    /// The client's position in `0 ..< microPercentScale`.
    ///
    /// - Parameters:
    ///   - seed: The condition's seed; empty for none.
    ///   - randomizationId: Who is asking (the app instance id).
    public static func microPercentile(seed: String, randomizationId: String) -> UInt64 {
        var hasher = SHA256()
        if !seed.isEmpty {
            update(&hasher, with: seed)
            update(&hasher, with: ".")
        }
        update(&hasher, with: randomizationId)
        // (a * 256 + b) mod m, byte by byte, equals the big-endian integer mod m and never
        // exceeds 2^35, so no bignum is needed.
        var remainder: UInt64 = 0
        for byte in hasher.finalize() {
            remainder = (remainder << 8 | UInt64(byte)) % microPercentScale
        }
        return remainder
    }

    private static func update(_ hasher: inout SHA256, with text: String) {
        var text = text
        text.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
    }
}
