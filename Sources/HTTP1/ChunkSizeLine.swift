extension HTTPRequestParser {
    /// `chunk-size [ chunk-ext ]` (RFC 9112 §7.1): hex digits, then `;name[=value]` parts.
    /// Anything else after the size, a space not followed by `;` included, is an error.
    static func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        var size = 0
        var digits = 0
        var index = line.startIndex
        while index < line.endIndex, let value = RequestURI.hexValue(line[index]) {
            digits += 1
            guard digits <= 15 else { throw .bad("The chunk size is too large.") }
            size = size << 4 | Int(value)
            index += 1
        }
        guard digits > 0 else { throw .bad("The chunk size is not a hexadecimal number.") }
        var extensions = ChunkExtensionScanner(line[index...])
        guard extensions.scan() else {
            throw .bad(extensions.sawSemicolon ? "Invalid chunk extension." : "Unexpected characters after the chunk size.")
        }
        return size
    }
}

/// `*( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )` (RFC 9112 §7.1.1).
/// Extensions are understood by no one here; they are only checked, then ignored.
struct ChunkExtensionScanner {
    private let bytes: ArraySlice<UInt8>
    private var index: Int
    private(set) var sawSemicolon = false

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    /// True when the bytes are a valid (possibly empty) list of extensions. Whitespace is
    /// allowed only around `;` and `=`, so "5 " or "5;a " is not a size line.
    mutating func scan() -> Bool {
        while index < bytes.endIndex {
            skipWhitespace()
            guard take(UInt8(ascii: ";")) else { return false }
            sawSemicolon = true
            skipWhitespace()
            guard takeToken() else { return false }
            let afterName = index
            skipWhitespace()
            if take(UInt8(ascii: "=")) {
                skipWhitespace()
                guard takeToken() || takeQuotedString() else { return false }
            } else {
                index = afterName
            }
        }
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.endIndex, bytes[index] == .space || bytes[index] == .tab { index += 1 }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.endIndex, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func takeToken() -> Bool {
        let start = index
        while index < bytes.endIndex, HeadParser.isTokenByte(bytes[index]) { index += 1 }
        return index > start
    }

    /// `DQUOTE *( qdtext / quoted-pair ) DQUOTE` (RFC 9110 §5.6.4).
    private mutating func takeQuotedString() -> Bool {
        guard take(UInt8(ascii: "\"")) else { return false }
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return true
            case UInt8(ascii: "\\"):
                guard index < bytes.endIndex, Self.isQuotable(bytes[index]) else { return false }
                index += 1
            default:
                guard Self.isQuotable(byte) else { return false }
            }
        }
        return false
    }

    /// HTAB, SP, VCHAR and obs-text: what qdtext and quoted-pair allow (less `"` and `\`
    /// in qdtext, handled by the caller).
    private static func isQuotable(_ byte: UInt8) -> Bool {
        byte == .tab || (byte >= .space && byte != 0x7F)
    }
}
