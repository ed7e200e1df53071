import Foundation

/// Where a value read from the client comes from.
public enum ValueSource: String, Sendable, Hashable, Codable {
    /// Neither the server nor the in-app defaults know the key.
    case `static`
    /// The in-app default set with ``ConfigClient/setDefaults(_:)``.
    case `default`
    /// The active config fetched from the server.
    case remote
}

/// A config value as stored (always a string on the wire) plus its source. The typed views
/// return `nil` when the string does not parse, never a silent `false` or `0`.
public struct ConfigValue: Sendable, Hashable {
    /// The raw string; empty for ``ValueSource/static``.
    public let stringValue: String
    /// Where the value comes from.
    public let source: ValueSource

    /// - Parameters:
    ///   - stringValue: the raw string.
    ///   - source: where it came from.
    public init(stringValue: String, source: ValueSource) {
        self.stringValue = stringValue
        self.source = source
    }

    /// A value for a key nobody defines.
    public static let missing = ConfigValue(stringValue: "", source: .static)

    /// `true` for `1, true, t, yes, y, on`; `false` for `0, false, f, no, n, off` (any case);
    /// otherwise `nil`.
    public var boolValue: Bool? {
        guard source != .static else { return nil }
        switch stringValue.trimmingCharacters(in: .whitespaces).lowercased() {
        case "1", "true", "t", "yes", "y", "on": return true
        case "0", "false", "f", "no", "n", "off": return false
        default: return nil
        }
    }

    /// The value as an integer; `"3"` and `"3.0"` parse, `"3.5"` and out-of-range numbers do not.
    public var intValue: Int? {
        guard source != .static else { return nil }
        let text = stringValue.trimmingCharacters(in: .whitespaces)
        if let value = Int(text) { return value }
        guard let double = Double(text), double.rounded() == double, let value = Int(exactly: double) else { return nil }
        return value
    }

    /// The value as a finite number, or `nil`.
    public var doubleValue: Double? {
        guard source != .static, let value = Double(stringValue.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            return nil
        }
        return value
    }

    /// The value decoded as JSON into `type`, or `nil` when it is not valid JSON of that shape.
    public func decode<T: Decodable>(_ type: T.Type) -> T? {
        guard source != .static else { return nil }
        return try? JSONDecoder().decode(type, from: Data(stringValue.utf8))
    }
}

/// An in-app default. Written as a literal (`"on"`, `true`, `3`, `0.5`) or with ``json(_:)``.
public enum DefaultValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral
{
    case string(String)
    case bool(Bool)
    case int(Int)
    case double(Double)
    /// A JSON document, stored as its text.
    case jsonText(String)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }

    /// A default holding `value` encoded as JSON (sorted keys).
    /// - Throws: the encoder's error when `value` cannot be encoded.
    public static func json(_ value: some Encodable) throws -> DefaultValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return .jsonText(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// The string the server would send for this value.
    public var stringValue: String {
        switch self {
        case .string(let value), .jsonText(let value): value
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): String(value)
        }
    }
}
