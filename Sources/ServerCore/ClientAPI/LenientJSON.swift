package import ConfigCore
import HTTP1

/// A JSON reader that also accepts what the iOS SDK sends (spec §3.2): unquoted keys and
/// single-quoted strings, JSON5-style. Strict JSON reads the same as with any parser.
package struct LenientJSON {
    package struct SyntaxError: Error {
        package let message: String
        package let offset: Int
    }

    /// The input, lent by the static entry point: reads are unchecked by the array and
    /// retain nothing (a request body is parsed on every fetch).
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    /// Parses an input that must be one object, into its members in the order sent (a later
    /// duplicate follows an earlier one). A request body's few members are looked up faster in
    /// a list than hashed into a dictionary. Nil when the input is another kind of value.
    static func parseMembers(_ bytes: [UInt8]) throws(SyntaxError) -> [(name: String, value: JSONValue)]? {
        try readObject(bytes) { reader throws(SyntaxError) in
            var members: [(name: String, value: JSONValue)] = []
            members.reserveCapacity(8)
            try reader.members { members.append((name: $0, value: $1)) }
            return members
        }
    }

    /// As ``parseMembers(_:)``, but the object under the top-level member `name` is read into a
    /// list too, in the order sent (that of the last such member; its place among the members
    /// holds an empty object). An OFREP body's context is looked up faster in a list than hashed
    /// into a dictionary.
    package static func parseMembers(_ bytes: [UInt8], listing name: String) throws(SyntaxError)
        -> (members: [(name: String, value: JSONValue)], listed: [(name: String, value: JSONValue)]?)? {
        try readObject(bytes) { reader throws(SyntaxError) in
            var members: [(name: String, value: JSONValue)] = []
            members.reserveCapacity(8)
            var listed: [(name: String, value: JSONValue)]?
            try reader.members(listing: name, into: &listed) { members.append((name: $0, value: $1)) }
            return (members, listed)
        }
    }

    /// Reads an input that must be one object, handing each top-level member's name (its UTF-8
    /// bytes) to `visit` with the reader at the member's value, which `visit` must read with
    /// ``value()``: no string is made of a name, nor of a value `visit` does not keep. False
    /// when the input is another kind of value.
    static func visitMembers(
        _ bytes: [UInt8], _ visit: (UnsafeBufferPointer<UInt8>, inout LenientJSON) throws(SyntaxError) -> Void
    ) throws(SyntaxError) -> Bool {
        try readObject(bytes) { reader throws(SyntaxError) in try reader.visitMembers(visit) } != nil
    }

    /// `read`'s result for an input that must be one object (the reader is at its opening
    /// brace); nil when the input is another kind of value.
    private static func readObject<Result>(
        _ bytes: [UInt8], _ read: (inout LenientJSON) throws(SyntaxError) -> Result
    ) throws(SyntaxError) -> Result? {
        try bytes.withUnsafeBufferPointer { bytes throws(SyntaxError) in
            var reader = LenientJSON(bytes: bytes)
            reader.skipWhitespace()
            guard reader.position < bytes.count, bytes[reader.position] == UInt8(ascii: "{") else {
                _ = try reader.value()
                try reader.expectEnd()
                return nil
            }
            let result = try read(&reader)
            try reader.expectEnd()
            return result
        }
    }

    private mutating func expectEnd() throws(SyntaxError) {
        skipWhitespace()
        guard position == bytes.count else { throw error("unexpected text after the JSON value") }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private func error(_ message: String) -> SyntaxError {
        SyntaxError(message: message, offset: position)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The value at the reader.
    mutating func value() throws(SyntaxError) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw error("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""), UInt8(ascii: "'"): return .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default:
            let word = identifier()
            switch word {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null": return .null
            default: throw error("unexpected character")
            }
        }
    }

    private mutating func object() throws(SyntaxError) -> JSONValue {
        var members: [String: JSONValue] = [:]
        // A fetch body's maps have a few members: one allocation instead of a resize per doubling.
        members.reserveCapacity(8)
        try self.members { members[$0] = $1 }
        return .object(members)
    }

    /// Reads `{ name: value, ... }`, handing each member to `add` in order.
    private mutating func members(_ add: (String, JSONValue) -> Void) throws(SyntaxError) {
        var unused: [(name: String, value: JSONValue)]?
        try members(listing: nil, into: &unused, add)
    }

    /// Reads `{ name: value, ... }`, handing each member to `add` in order; an object under
    /// `listed` is read into `list` instead, and handed on empty.
    private mutating func members(listing listed: String?, into list: inout [(name: String, value: JSONValue)]?,
                                  _ add: (String, JSONValue) -> Void) throws(SyntaxError) {
        try visitMembers { name, reader throws(SyntaxError) in
            let key = String(decoding: name, as: UTF8.self)
            if let listed, key == listed, reader.position < reader.bytes.count, reader.bytes[reader.position] == UInt8(ascii: "{") {
                var entries: [(name: String, value: JSONValue)] = []
                entries.reserveCapacity(8)
                try reader.members { entries.append((name: $0, value: $1)) }
                list = entries
                add(key, .object([:]))
            } else {
                add(key, try reader.value())
            }
        }
    }

    /// Reads `{ name: value, ... }`: hands each member's name (its UTF-8 bytes, escapes
    /// resolved) to `visit` with the reader at the member's value, which `visit` reads
    /// (``value()``). No string is made of a name unless `visit` makes one.
    private mutating func visitMembers(
        _ visit: (UnsafeBufferPointer<UInt8>, inout LenientJSON) throws(SyntaxError) -> Void
    ) throws(SyntaxError) {
        try enter()
        defer { depth -= 1 }
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw error("unterminated object") }
            let name: StringBytes
            if bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") {
                name = try stringBytes()
            } else {
                let word = identifierRange()
                guard !word.isEmpty else { throw error("expected a member name") }
                name = .input(word)
            }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
            position += 1
            skipWhitespace()
            switch name {
            case .input(let range): try visit(UnsafeBufferPointer(rebasing: bytes[range]), &self)
            case .unescaped(let text): try text.withUnsafeBufferPointer { text throws(SyntaxError) in try visit(text, &self) }
            }
            skipWhitespace()
            guard position < bytes.count else { throw error("unterminated object") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard bytes[position] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            position += 1
            return
        }
    }

    private mutating func array() throws(SyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            guard position < bytes.count else { throw error("unterminated array") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard bytes[position] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            position += 1
            return .array(elements)
        }
    }

    /// Nesting is bounded so a hostile body cannot exhaust the stack.
    private mutating func enter() throws(SyntaxError) {
        depth += 1
        guard depth <= 64 else { throw error("nesting deeper than 64 levels") }
    }

    private mutating func identifier() -> String {
        String(decoding: bytes[identifierRange()], as: UTF8.self)
    }

    /// Where the unquoted word at the reader is (JSON5's member names, `true`, `null`).
    private mutating func identifierRange() -> Range<Int> {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            let isWordByte = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
            guard isWordByte else { break }
            position += 1
        }
        return start..<position
    }

    private mutating func number() throws(SyntaxError) -> JSONValue {
        let start = position
        while position < bytes.count, "+-0123456789.eE".utf8.contains(bytes[position]) { position += 1 }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let number = Double(text) else { throw SyntaxError(message: "malformed number", offset: start) }
        return .number(number)
    }

    private mutating func string() throws(SyntaxError) -> String {
        switch try stringBytes() {
        case .input(let range): String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        case .unescaped(let text): String(decoding: text, as: UTF8.self)
        }
    }

    /// A quoted string's UTF-8 bytes: where they are in the input, or, when it has escapes,
    /// the bytes they stand for.
    private enum StringBytes {
        case input(Range<Int>)
        case unescaped([UInt8])
    }

    private mutating func stringBytes() throws(SyntaxError) -> StringBytes {
        let quote = bytes[position]
        position += 1
        // Most strings have no escapes: they are read straight from the input.
        let start = position
        while position < bytes.count, bytes[position] != quote, bytes[position] != UInt8(ascii: "\\") { position += 1 }
        if position < bytes.count, bytes[position] == quote {
            position += 1
            return .input(start..<position - 1)
        }
        var scalars = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == quote { return .unescaped(scalars) }
            guard byte == UInt8(ascii: "\\") else {
                scalars.append(byte)
                continue
            }
            guard position < bytes.count else { break }
            let escaped = bytes[position]
            position += 1
            switch escaped {
            case UInt8(ascii: "n"): scalars.append(0x0A)
            case UInt8(ascii: "t"): scalars.append(0x09)
            case UInt8(ascii: "r"): scalars.append(0x0D)
            case UInt8(ascii: "b"): scalars.append(0x08)
            case UInt8(ascii: "f"): scalars.append(0x0C)
            case UInt8(ascii: "u"):
                guard var code = hex4(at: position) else { throw error("malformed \\u escape") }
                position += 4
                // A character beyond the BMP comes as a surrogate pair: "\uD83D\uDE0A".
                if (0xD800...0xDBFF).contains(code), position + 6 <= bytes.count,
                   bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u"),
                   let low = hex4(at: position + 2), (0xDC00...0xDFFF).contains(low) {
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    position += 6
                }
                let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: scalars.append(escaped)
            }
        }
        throw error("unterminated string")
    }

    /// Four hex digits at `index`, or nil.
    private func hex4(at index: Int) -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            guard let digit = RequestURI.hexValue(byte) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
