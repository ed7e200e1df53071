/// A set of Unicode scalars: sorted, merged ranges, optionally negated and case-folded.
struct RegexCharSet: Sendable {
    var ranges: [ClosedRange<UInt32>] = []
    var negated = false
    var foldCase = false

    mutating func add(_ range: ClosedRange<UInt32>) { ranges.append(range) }

    mutating func add(_ other: RegexCharSet) {
        if other.negated {
            // Complement of other's ranges within the Unicode range.
            var next: UInt32 = 0
            for range in other.normalized().ranges {
                if range.lowerBound > next { ranges.append(next...(range.lowerBound - 1)) }
                next = range.upperBound &+ 1
            }
            if next <= 0x10FFFF { ranges.append(next...0x10FFFF) }
        } else {
            ranges.append(contentsOf: other.ranges)
        }
    }

    func normalized() -> RegexCharSet {
        var merged: [ClosedRange<UInt32>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        var result = self
        result.ranges = merged
        return result
    }

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        var found = rangesContain(scalar.value)
        if !found, foldCase {
            found = RegexCharSet.caseVariants(of: scalar).contains { rangesContain($0.value) }
        }
        return found != negated
    }

    private func rangesContain(_ value: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound < value { low = mid + 1 } else { high = mid }
        }
        return low < ranges.count && ranges[low].contains(value)
    }

    /// Other-case forms of `scalar` that are single scalars (simple case folding).
    static func caseVariants(of scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        let value = scalar.value
        if value < 0x80 {
            if (0x41...0x5A).contains(value) { return [Unicode.Scalar(value + 0x20)!] }
            if (0x61...0x7A).contains(value) { return [Unicode.Scalar(value - 0x20)!] }
            return []
        }
        var variants: [Unicode.Scalar] = []
        for mapping in [scalar.properties.lowercaseMapping, scalar.properties.uppercaseMapping] {
            let scalars = mapping.unicodeScalars
            if scalars.count == 1, let first = scalars.first, first != scalar, !variants.contains(first) {
                variants.append(first)
            }
        }
        return variants
    }

    static let digit = RegexCharSet(ranges: [0x30...0x39])
    static let word = RegexCharSet(ranges: [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    // RE2's \s is [\t\n\f\r ] (no \v).
    static let space = RegexCharSet(ranges: [0x09...0x0A, 0x0C...0x0D, 0x20...0x20])

    static let posix: [String: [ClosedRange<UInt32>]] = [
        "alnum": [0x30...0x39, 0x41...0x5A, 0x61...0x7A],
        "alpha": [0x41...0x5A, 0x61...0x7A],
        "ascii": [0x00...0x7F],
        "blank": [0x09...0x09, 0x20...0x20],
        "cntrl": [0x00...0x1F, 0x7F...0x7F],
        "digit": [0x30...0x39],
        "graph": [0x21...0x7E],
        "lower": [0x61...0x7A],
        "print": [0x20...0x7E],
        "punct": [0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E],
        "space": [0x09...0x0D, 0x20...0x20],
        "upper": [0x41...0x5A],
        "word": [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A],
        "xdigit": [0x30...0x39, 0x41...0x46, 0x61...0x66],
    ]
}
