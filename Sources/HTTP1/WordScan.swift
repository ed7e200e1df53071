/// Checks every byte of a buffer, eight at a time while whole words pass: a head's values and
/// targets are most of its bytes. `wordMayFail` must be true for any word holding a byte that
/// `byteIsValid` refuses (it may be true for others too); from the first such word on, bytes
/// are checked one by one.
@inline(__always)
func allBytesValid(
    _ bytes: UnsafeBufferPointer<UInt8>, wordMayFail: (UInt64) -> Bool, byteIsValid: (UInt8) -> Bool
) -> Bool {
    var index = 0
    if let base = UnsafeRawPointer(bytes.baseAddress) {
        while index + 8 <= bytes.count, !wordMayFail(base.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
            index += 8
        }
    }
    while index < bytes.count {
        guard byteIsValid(bytes[index]) else { return false }
        index += 1
    }
    return true
}

/// Words with one byte each: the constants of the word tests (Hacker's Delight §6-1).
let wordOnes: UInt64 = 0x0101_0101_0101_0101
let wordHighBits: UInt64 = 0x8080_8080_8080_8080
