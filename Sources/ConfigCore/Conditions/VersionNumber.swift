/// A dotted numeric version such as `2.10.1`, compared segment by segment.
///
/// Follows the recommendation of the protocol notes (§5.4): the text must match
/// `^[0-9]+(\.[0-9]+){0,4}$` once surrounding whitespace is trimmed; missing segments count as
/// zero, so `1.2` equals `1.2.0`. Anything else (signs, empty segments, more than five segments,
/// a segment that overflows 64 bits) is not a version, and every comparison with it is false.
/// Stored inline so that parsing a client's value per evaluation allocates nothing.
struct VersionNumber: Sendable, Hashable, Comparable {
    /// Firebase's limit on segments ("enforced by the server as well" in the Admin SDK).
    static let maxSegments = 5

    private var segments: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)

    init?(_ text: some StringProtocol) {
        // Over contiguous bytes when the text has them (always for native strings): version
        // rules parse the client's version on every fetch.
        guard let parsed = text.utf8.withContiguousStorageIfAvailable({ Self(bytes: $0) }) ?? Self(bytes: Array(text.utf8)) else {
            return nil
        }
        self = parsed
    }

    private init?<Bytes: Collection<UInt8>>(bytes: Bytes) where Bytes.Index == Int {
        var index = bytes.startIndex
        var end = bytes.endIndex
        while index < end, ASCII.isWhitespace(bytes[index]) { index += 1 }
        while end > index, ASCII.isWhitespace(bytes[end - 1]) { end -= 1 }
        guard index < end else { return nil }

        var count = 0
        var current: UInt64 = 0
        var digitsInSegment = 0
        while true {
            let atEnd = index == end
            let byte = atEnd ? UInt8(ascii: ".") : bytes[index]
            if byte == UInt8(ascii: ".") {
                guard digitsInSegment > 0, count < Self.maxSegments else { return nil }
                set(count, current)
                count += 1
                current = 0
                digitsInSegment = 0
                if atEnd { break }
            } else if ASCII.isDigit(byte) {
                let (scaled, overflow1) = current.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = scaled.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { return nil }
                current = sum
                digitsInSegment += 1
            } else {
                return nil
            }
            index += 1
        }
    }

    private mutating func set(_ position: Int, _ value: UInt64) {
        switch position {
        case 0: segments.0 = value
        case 1: segments.1 = value
        case 2: segments.2 = value
        case 3: segments.3 = value
        default: segments.4 = value
        }
    }

    static func == (lhs: VersionNumber, rhs: VersionNumber) -> Bool {
        lhs.segments == rhs.segments
    }

    static func < (lhs: VersionNumber, rhs: VersionNumber) -> Bool {
        lhs.segments < rhs.segments
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(segments.0)
        hasher.combine(segments.1)
        hasher.combine(segments.2)
        hasher.combine(segments.3)
        hasher.combine(segments.4)
    }
}
