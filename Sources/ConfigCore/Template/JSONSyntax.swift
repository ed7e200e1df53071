/// A strict RFC 8259 syntax check for `JSON` parameter values.
///
/// Foundation's parsers on Linux accept trailing commas and other leniencies that the Firebase
/// console (`JSON.parse`) and Apple's `JSONSerialization` reject, so a value they let through
/// could break clients.
enum JSONSyntax {
    /// Nesting deeper than this is refused rather than risking the stack.
    static let maxDepth = 512

    /// The UTF-8 offset of the first syntax error in `text`, or `nil` when it is one JSON value
    /// (any kind, surrounded by optional whitespace).
    static func firstError(in text: String) -> Int? {
        var parser = Parser(bytes: Array(text.utf8))
        parser.skipWhitespace()
        guard parser.value(depth: 0) else { return parser.position }
        parser.skipWhitespace()
        return parser.position == parser.bytes.count ? nil : parser.position
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                position += 1
            }
        }

        private mutating func consume(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            position += 1
            return true
        }

        private mutating func literal(_ word: String) -> Bool {
            for byte in word.utf8 where !consume(byte) { return false }
            return true
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < JSONSyntax.maxDepth, let byte = current else { return false }
            switch byte {
            case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), depth: depth, isObject: true)
            case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), depth: depth, isObject: false)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        /// An object or array; members are `"key": value` in objects.
        private mutating func container(close: UInt8, depth: Int, isObject: Bool) -> Bool {
            position += 1
            skipWhitespace()
            if consume(close) { return true }
            while true {
                if isObject {
                    guard current == UInt8(ascii: "\""), string() else { return false }
                    skipWhitespace()
                    guard consume(UInt8(ascii: ":")) else { return false }
                    skipWhitespace()
                }
                guard value(depth: depth + 1) else { return false }
                skipWhitespace()
                if consume(close) { return true }
                guard consume(UInt8(ascii: ",")) else { return false }
                skipWhitespace()
            }
        }

        private mutating func string() -> Bool {
            position += 1
            while let byte = current {
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return true
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { return false }
                    position += 1
                    if escaped == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            guard let hex = current, hex.isHexDigit else { return false }
                            position += 1
                        }
                    } else if !"\"\\/bfnrt".utf8.contains(escaped) {
                        position -= 1
                        return false
                    }
                case 0..<0x20:
                    // Control characters must be escaped inside strings.
                    position -= 1
                    return false
                default:
                    break
                }
            }
            return false
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        private mutating func number() -> Bool {
            _ = consume(UInt8(ascii: "-"))
            if consume(UInt8(ascii: "0")) {
                // No leading zeros.
            } else {
                guard digits() > 0 else { return false }
            }
            if consume(UInt8(ascii: ".")), digits() == 0 { return false }
            if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
                _ = consume(UInt8(ascii: "+")) || consume(UInt8(ascii: "-"))
                guard digits() > 0 else { return false }
            }
            return true
        }

        private mutating func digits() -> Int {
            let start = position
            while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                position += 1
            }
            return position - start
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
