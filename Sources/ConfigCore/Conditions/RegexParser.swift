/// Recursive-descent parser for the RE2 subset described on `LinearRegex`.
struct RegexParser {
    private struct Flags {
        var caseInsensitive = false
        var multiLine = false
        var dotMatchesNewline = false
    }

    /// Groups may nest this deep; the parser recurses once per group.
    static let maxGroupDepth = 100

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var flags = Flags()
    private var depth = 0

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    mutating func parse() throws(LinearRegex.SyntaxError) -> RegexNode {
        let node = try parseAlternation()
        if position < scalars.count {
            // Only an unmatched ')' stops the top-level alternation early.
            throw error("unexpected ')'")
        }
        return node
    }

    private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private func error(_ message: String, at offset: Int? = nil) -> LinearRegex.SyntaxError {
        LinearRegex.SyntaxError(message: message, offset: offset ?? position)
    }

    private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard current == scalar else { return false }
        position += 1
        return true
    }

    private mutating func parseAlternation() throws(LinearRegex.SyntaxError) -> RegexNode {
        var branches = [try parseConcatenation()]
        while take("|") {
            branches.append(try parseConcatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseConcatenation() throws(LinearRegex.SyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let scalar = current, scalar != "|", scalar != ")" {
            let start = position
            guard let atom = try parseAtom() else { continue }
            items.append(try parseQuantifiers(atom, start: start))
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concatenation(items)
        }
    }

    private mutating func parseQuantifiers(_ atom: RegexNode, start: Int) throws(LinearRegex.SyntaxError) -> RegexNode {
        let quantifierStart = position
        guard let (min, max) = try parseQuantifier() else { return atom }
        if case .assertion = atom {
            throw error("missing argument to repetition operator", at: quantifierStart)
        }
        _ = take("?")  // lazy: the same set of matches
        if position < scalars.count, try peekQuantifier() {
            throw error("bad repetition operator", at: position)
        }
        return .repetition(atom, min: min, max: max)
    }

    private mutating func peekQuantifier() throws(LinearRegex.SyntaxError) -> Bool {
        let saved = position
        defer { position = saved }
        return try parseQuantifier() != nil
    }

    /// `*`, `+`, `?` or a well-formed `{n}`, `{n,}`, `{n,m}`; a malformed brace is a literal.
    private mutating func parseQuantifier() throws(LinearRegex.SyntaxError) -> (Int, Int?)? {
        switch current {
        case "*": position += 1; return (0, nil)
        case "+": position += 1; return (1, nil)
        case "?": position += 1; return (0, 1)
        case "{":
            let start = position
            position += 1
            guard let min = parseInteger() else { position = start; return nil }
            var max: Int? = min
            if take(",") {
                max = current == "}" ? nil : parseInteger()
                if max == nil, current != "}" { position = start; return nil }
            }
            guard take("}") else { position = start; return nil }
            if min > LinearRegex.maxRepeat || (max ?? 0) > LinearRegex.maxRepeat {
                throw error("repetition count above \(LinearRegex.maxRepeat)", at: start)
            }
            if let max, max < min { throw error("invalid repetition range", at: start) }
            return (min, max)
        default:
            return nil
        }
    }

    private mutating func parseInteger() -> Int? {
        var value = 0
        var digits = 0
        while let scalar = current, scalar.properties.numericType != nil, scalar.isASCII {
            value = Swift.min(value * 10 + Int(scalar.value - 0x30), 100_000)
            digits += 1
            position += 1
        }
        return digits > 0 ? value : nil
    }

    private mutating func parseAtom() throws(LinearRegex.SyntaxError) -> RegexNode? {
        let start = position
        let scalar = scalars[position]
        position += 1
        switch scalar {
        case "(": return try parseGroup(start: start)
        case "[": return .set(try parseClass(start: start))
        case ".": return .anyCharacter(matchesNewline: flags.dotMatchesNewline)
        case "^": return .assertion(flags.multiLine ? .beginLine : .beginText)
        case "$": return .assertion(flags.multiLine ? .endLine : .endText)
        case "*", "+", "?":
            throw error("missing argument to repetition operator", at: start)
        case "{":
            // A brace that does not start a well-formed counted repetition is a literal.
            position = start
            if (try? peekQuantifier()) == true {
                throw error("missing argument to repetition operator", at: start)
            }
            position = start + 1
            return literal(scalar)
        case "\\":
            return try parseEscape(start: start)
        default:
            return literal(scalar)
        }
    }

    private func literal(_ scalar: Unicode.Scalar) -> RegexNode {
        var set = RegexCharSet(ranges: [scalar.value...scalar.value])
        set.foldCase = flags.caseInsensitive
        return .set(set)
    }

    private mutating func parseGroup(start: Int) throws(LinearRegex.SyntaxError) -> RegexNode? {
        guard depth < RegexParser.maxGroupDepth else {
            throw error("groups nest deeper than \(RegexParser.maxGroupDepth)", at: start)
        }
        let savedFlags = flags
        if take("?") {
            if take("P") || current == "<" {
                guard take("<") else { throw error("invalid named group", at: start) }
                if current == "=" || current == "!" { throw error("lookbehind is not supported", at: start) }
                while let scalar = current, scalar != ">" { position += 1 }
                guard take(">") else { throw error("invalid named group", at: start) }
            } else if current == "=" || current == "!" {
                throw error("lookahead is not supported", at: start)
            } else {
                // Flags: (?flags) applies to the rest of the enclosing group, (?flags:re) to re.
                var clearing = false
                var newFlags = flags
                loop: while let scalar = current {
                    position += 1
                    switch scalar {
                    case "i": newFlags.caseInsensitive = !clearing
                    case "m": newFlags.multiLine = !clearing
                    case "s": newFlags.dotMatchesNewline = !clearing
                    case "U": break  // ungreedy: does not change whether a match exists
                    case "-" where !clearing: clearing = true
                    case ")":
                        flags = newFlags
                        return nil
                    case ":":
                        flags = newFlags
                        break loop
                    default:
                        throw error("invalid or unsupported group flags", at: start)
                    }
                }
                if current == nil, scalars[position - 1] != ":" {
                    throw error("missing ')'", at: start)
                }
            }
        }
        depth += 1
        let inner = try parseAlternation()
        depth -= 1
        guard take(")") else { throw error("missing ')'", at: start) }
        flags = savedFlags
        return inner
    }

    private mutating func parseEscape(start: Int) throws(LinearRegex.SyntaxError) -> RegexNode {
        guard let scalar = current else { throw error("trailing backslash", at: start) }
        position += 1
        switch scalar {
        case "A": return .assertion(.beginText)
        case "z": return .assertion(.endText)
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "C": return .anyCharacter(matchesNewline: true)
        case "Q":
            var items: [RegexNode] = []
            while position < scalars.count {
                if scalars[position] == "\\", position + 1 < scalars.count, scalars[position + 1] == "E" {
                    position += 2
                    break
                }
                items.append(literal(scalars[position]))
                position += 1
            }
            return items.isEmpty ? .empty : .concatenation(items)
        default:
            position = start
            return .set(try parseEscapedSet())
        }
    }

    /// An escape that stands for characters (usable inside and outside classes).
    private mutating func parseEscapedSet() throws(LinearRegex.SyntaxError) -> RegexCharSet {
        let start = position
        position += 1  // the backslash
        guard let scalar = current else { throw error("trailing backslash", at: start) }
        position += 1
        var set: RegexCharSet
        switch scalar {
        case "d": set = .digit
        case "D": set = .digit; set.negated = true
        case "w": set = .word
        case "W": set = .word; set.negated = true
        case "s": set = .space
        case "S": set = .space; set.negated = true
        case "p", "P": throw error("Unicode classes (\\p) are not supported", at: start)
        case "1"..."9": throw error("backreferences are not supported", at: start)
        default:
            let value = try escapedScalar(scalar, start: start)
            set = RegexCharSet(ranges: [value...value])
            set.foldCase = flags.caseInsensitive
        }
        return set
    }

    private mutating func escapedScalar(_ scalar: Unicode.Scalar, start: Int) throws(LinearRegex.SyntaxError) -> UInt32 {
        switch scalar {
        case "a": return 0x07
        case "f": return 0x0C
        case "t": return 0x09
        case "n": return 0x0A
        case "r": return 0x0D
        case "v": return 0x0B
        case "0": return 0x00
        case "x":
            var digits = ""
            if take("{") {
                while let next = current, next != "}" { digits.unicodeScalars.append(next); position += 1 }
                guard take("}") else { throw error("invalid escape \\x", at: start) }
            } else {
                // Exactly two digits (RE2): "\x1" at the end of a pattern is an error, as it is
                // before a ')'.
                for _ in 0..<2 {
                    guard let next = current else { throw error("invalid escape \\x", at: start) }
                    digits.unicodeScalars.append(next)
                    position += 1
                }
            }
            // `UInt32(_:radix:)` would also take a sign.
            guard !digits.isEmpty, digits.count <= 8, digits.unicodeScalars.allSatisfy(\.properties.isASCIIHexDigit),
                  let value = UInt32(digits, radix: 16),
                  Unicode.Scalar(value) != nil else {
                throw error("invalid escape \\x", at: start)
            }
            return value
        default:
            // Only punctuation may be escaped to stand for itself.
            guard scalar.isASCII, !scalar.properties.isAlphabetic, scalar.properties.numericType == nil else {
                throw error("invalid escape \\\(scalar)", at: start)
            }
            return scalar.value
        }
    }

    private mutating func parseClass(start: Int) throws(LinearRegex.SyntaxError) -> RegexCharSet {
        var set = RegexCharSet()
        set.foldCase = flags.caseInsensitive
        if take("^") { set.negated = true }
        var first = true
        while true {
            guard let scalar = current else { throw error("missing ']'", at: start) }
            if scalar == "]", !first { position += 1; break }
            first = false
            if scalar == "[", position + 1 < scalars.count, scalars[position + 1] == ":" {
                set.add(try parsePosixClass())
                continue
            }
            let low: UInt32
            if scalar == "\\" {
                let escaped = try parseEscapedSet()
                guard escaped.ranges.count == 1, !escaped.negated,
                      escaped.ranges[0].lowerBound == escaped.ranges[0].upperBound else {
                    set.add(escaped)
                    continue
                }
                low = escaped.ranges[0].lowerBound
            } else {
                low = scalar.value
                position += 1
            }
            // A '-' forms a range unless it is last in the class.
            if current == "-", position + 1 < scalars.count, scalars[position + 1] != "]" {
                let rangeStart = position - 1
                position += 1
                let high: UInt32
                if current == "\\" {
                    let escaped = try parseEscapedSet()
                    guard escaped.ranges.count == 1, escaped.ranges[0].lowerBound == escaped.ranges[0].upperBound else {
                        throw error("invalid character class range", at: rangeStart)
                    }
                    high = escaped.ranges[0].lowerBound
                } else {
                    high = current!.value
                    position += 1
                }
                guard low <= high else { throw error("invalid character class range", at: rangeStart) }
                set.add(low...high)
            } else {
                set.add(low...low)
            }
        }
        return set.normalized()
    }

    private mutating func parsePosixClass() throws(LinearRegex.SyntaxError) -> RegexCharSet {
        let start = position
        position += 2  // "[:"
        var negated = false
        if take("^") { negated = true }
        var name = ""
        while let scalar = current, scalar != ":" { name.unicodeScalars.append(scalar); position += 1 }
        guard take(":"), take("]"), let ranges = RegexCharSet.posix[name] else {
            throw error("invalid character class", at: start)
        }
        return RegexCharSet(ranges: ranges, negated: negated)
    }
}
