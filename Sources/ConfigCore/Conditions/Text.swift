/// Exact (code-point, not canonical-equivalence) text operations without allocation.
enum Text {
    /// `text` without leading and trailing whitespace, as JavaScript's `trim()` defines it.
    static func trimmed(_ text: String) -> Substring {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmable($0) }) else { return text[text.endIndex...] }
        let last = scalars.lastIndex(where: { !isTrimmable($0) })!
        return Substring(scalars[first...last])
    }

    private static func isTrimmable(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar == "\u{FEFF}"
    }

    static func equal(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8)
    }

    /// Whether `needle` occurs in `haystack` (byte-wise on UTF-8, so code-point exact).
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        guard !needle.isEmpty else { return true }
        return haystack.withUTF8Bytes { hay in
            needle.withUTF8Bytes { pin in
                guard pin.count <= hay.count else { return false }
                let first = pin[0]
                var start = 0
                let lastStart = hay.count - pin.count
                while start <= lastStart {
                    if hay[start] == first {
                        var offset = 1
                        while offset < pin.count, hay[start + offset] == pin[offset] { offset += 1 }
                        if offset == pin.count { return true }
                    }
                    start += 1
                }
                return false
            }
        }
    }

    static func equalIgnoringASCIICase(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        // Lengths first: most country and platform comparisons end here.
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        let equal = { (a: UInt8, b: UInt8) in a == b || (a | 0x20 == b | 0x20 && a | 0x20 >= 0x61 && a | 0x20 <= 0x7A) }
        let overBytes = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in left.elementsEqual(right, by: equal) }
        }
        return (overBytes ?? nil) ?? lhs.utf8.elementsEqual(rhs.utf8, by: equal)
    }
}

extension String {
    /// `body` over the string's UTF-8 bytes: in place when they are contiguous (a native
    /// string's always are), else over a copy's. For the scanners that run on every fetch.
    @inlinable
    package func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}

/// Byte classes used by the hand-written scanners of this module.
enum ASCII {
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Space, tab, newline, vertical tab, form feed, carriage return.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
}
