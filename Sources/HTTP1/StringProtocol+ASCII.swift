extension StringProtocol {
    /// Splits at an ASCII byte, keeping empty parts, without the grapheme breaking of
    /// `split(separator:)`: request targets are delimited by ASCII, and this is the hot path.
    @inlinable
    public func split(ascii separator: UInt8, maxSplits: Int = .max) -> [SubSequence] {
        var parts: [SubSequence] = []
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            if utf8[index] == separator, parts.count < maxSplits {
                parts.append(self[start..<index])
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        parts.append(self[start..<utf8.endIndex])
        return parts
    }
}
