private import CLibCrypto

/// Assigns a client to a stable bucket for percent conditions, exactly as the Firebase Admin
/// SDKs do for server templates (protocol notes §5.3), so a client keeps its bucket when moving
/// between Firebase and this server.
///
/// Algorithm: hash the UTF-8 bytes of `seed + "." + randomizationId` (just `randomizationId`
/// when the seed is empty) with SHA-256, read the 32-byte digest as an unsigned big-endian
/// integer and take it modulo 100 000 000.
///
/// The hash is OpenSSL's (system libcrypto) on a stack context rather than swift-crypto's
/// `SHA256`, whose per-hash context object and zeroing cost about three times the hash itself
/// here: a realistic fetch runs ten of these (docs/benchmarks.md, "Percent rules").
public enum PercentBucket {
    /// Number of buckets: one per micro-percent (a millionth of a percent), so 100 % is
    /// `microPercentScale`.
    public static let microPercentScale: UInt64 = 100_000_000

    /// The client's position in `0 ..< microPercentScale`.
    ///
    /// - Parameters:
    ///   - seed: The condition's seed; empty for none.
    ///   - randomizationId: Who is asking (the randomization id or the app instance id).
    public static func microPercentile(seed: String, randomizationId: String) -> UInt64 {
        // One contiguous input, one hash call and no heap: this runs for every percent
        // condition of every fetch. The strings' own bytes are read in place.
        seed.withUTF8Bytes { seedBytes in randomizationId.withUTF8Bytes { idBytes in microPercentile(seedBytes, idBytes) } }
    }

    /// As ``microPercentile(seed:randomizationId:)``, over the UTF-8 bytes of both.
    static func microPercentile(_ seedBytes: UnsafeBufferPointer<UInt8>, _ idBytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let length = seedBytes.isEmpty ? idBytes.count : seedBytes.count + 1 + idBytes.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { input in
            var offset = 0
            if !seedBytes.isEmpty {
                offset = input.initialize(fromContentsOf: seedBytes)
                input[offset] = UInt8(ascii: ".")
                offset += 1
            }
            _ = input[offset...].initialize(fromContentsOf: idBytes)
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(SHA256_DIGEST_LENGTH)) { digest in
                rcs_sha256(input.baseAddress, input.count, digest.baseAddress)
                return remainder(ofBigEndian: UnsafeRawBufferPointer(digest))
            }
        }
    }

    /// The big-endian integer in `digest` modulo `microPercentScale`, four bytes at a time:
    /// word `i` counts `2^(32 * (7 - i)) mod m` times, and the eight products, each below
    /// 2^32 * 2^27, add up below 2^62, so one division ends it and no bignum is needed. The
    /// products do not wait for one another, where a running remainder would divide eight
    /// times in a chain (ten hashes a fetch).
    private static func remainder(ofBigEndian digest: UnsafeRawBufferPointer) -> UInt64 {
        precondition(digest.count == 32, "a SHA-256 digest has 32 bytes")
        // 2^(32k) mod 10^8 for k = 7, 6, ..., 0, the weight of each word in turn.
        let weights: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (10_249_216, 34_512_896, 32_542_976, 68_211_456, 43_950_336, 9_551_616, 94_967_296, 1)
        func word(_ index: Int) -> UInt64 {
            UInt64(UInt32(bigEndian: digest.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
        }
        // Wrapping operators: the bounds above leave nothing to check.
        let high = word(0) &* weights.0 &+ word(1) &* weights.1 &+ word(2) &* weights.2 &+ word(3) &* weights.3
        let low = word(4) &* weights.4 &+ word(5) &* weights.5 &+ word(6) &* weights.6 &+ word(7) &* weights.7
        return (high &+ low) % microPercentScale
    }
}
