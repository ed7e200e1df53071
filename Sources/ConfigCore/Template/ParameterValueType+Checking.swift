extension ParameterValueType {
    /// Why `value` is not a value of this type, or `nil` when it is (spec §2.9: BOOLEAN is
    /// `true`/`false`, NUMBER is numeric, JSON parses).
    ///
    /// - Parameter caseSensitiveBooleans: when `false`, `TRUE` and `False` pass as BOOLEAN.
    func problem(with value: String, caseSensitiveBooleans: Bool = true) -> String? {
        switch self {
        case .boolean:
            let candidate = caseSensitiveBooleans ? value : value.lowercased()
            return candidate == "true" || candidate == "false"
                ? nil : "\(Self.quoted(value)) is not a BOOLEAN value; use true or false"
        case .number:
            return Self.isNumber(value) ? nil : "\(Self.quoted(value)) is not a NUMBER value"
        case .json:
            guard let offset = JSONSyntax.firstError(in: value) else { return nil }
            return "\(Self.quoted(value)) is not valid JSON (error at byte \(offset))"
        default:
            return nil
        }
    }

    /// A decimal number: optional sign, digits with an optional fraction (or a bare fraction),
    /// optional exponent, finite. Swift's `Double.init` alone would also take `nan`, `inf` and
    /// hexadecimal floats, which no SDK parses as numbers.
    private static func isNumber(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        func digits() -> Int {
            var count = 0
            while let byte = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                bytes.removeFirst()
                count += 1
            }
            return count
        }
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes.removeFirst() }
        var mantissaDigits = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes.removeFirst()
            mantissaDigits += digits()
        }
        guard mantissaDigits > 0 else { return false }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes.removeFirst()
            if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes.removeFirst() }
            guard digits() > 0 else { return false }
        }
        guard bytes.isEmpty, let number = Double(text) else { return false }
        return number.isFinite
    }

    /// `'value'`, cut to 40 characters so a huge value does not flood the error message.
    static func quoted(_ value: String) -> String {
        value.count > 40 ? "'\(value.prefix(40))…'" : "'\(value)'"
    }
}
