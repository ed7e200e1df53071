/// Strict parsing of decimal numbers for numeric rules.
///
/// The Admin SDKs disagree on edge cases (Node's `Number("")` is 0, `Number("0x10")` is 16);
/// the protocol notes (§5.4) recommend: trim, parse a plain decimal, reject empty and NaN.
/// Accepted: optional sign, digits with an optional fraction (or a fraction alone), and an
/// optional exponent, e.g. `42`, `-3.5`, `.5`, `1e3`. Rejected: `inf`, `nan`, hex, `1_000`.
enum DecimalNumber {
    static func parse(_ text: some StringProtocol) -> Double? {
        let bytes = Substring(text).utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, ASCII.isWhitespace(bytes[start]) { start = bytes.index(after: start) }
        while end > start, ASCII.isWhitespace(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        guard isDecimal(bytes[start..<end]) else { return nil }
        return Double(Substring(bytes[start..<end]))
    }

    /// Whether `bytes` match `[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?`.
    private static func isDecimal(_ bytes: Substring.UTF8View) -> Bool {
        var index = bytes.startIndex
        func peek() -> UInt8? { index < bytes.endIndex ? bytes[index] : nil }
        func advance() { index = bytes.index(after: index) }
        func digits() -> Int {
            var count = 0
            while let byte = peek(), ASCII.isDigit(byte) { advance(); count += 1 }
            return count
        }

        if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { advance() }
        var mantissaDigits = digits()
        if peek() == UInt8(ascii: ".") {
            advance()
            mantissaDigits += digits()
        }
        guard mantissaDigits > 0 else { return false }
        if let marker = peek(), marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            advance()
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { advance() }
            guard digits() > 0 else { return false }
        }
        return index == bytes.endIndex
    }
}
