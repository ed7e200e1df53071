/// A parameter's `valueType` (spec §2.2).
///
/// A string wrapper rather than a closed enum so that an unknown value decodes and the validator
/// can report it with its path instead of a bare decoding error.
public struct ParameterValueType: RawRepresentable, Sendable, Hashable, Codable,
    CustomStringConvertible
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let string = ParameterValueType(rawValue: "STRING")
    public static let boolean = ParameterValueType(rawValue: "BOOLEAN")
    public static let number = ParameterValueType(rawValue: "NUMBER")
    public static let json = ParameterValueType(rawValue: "JSON")
    /// Read as `STRING` (see `RemoteConfigParameter`); never written.
    public static let unspecified = ParameterValueType(rawValue: "PARAMETER_VALUE_TYPE_UNSPECIFIED")

    /// The four types Firebase accepts on publish.
    public static let known: [ParameterValueType] = [.string, .boolean, .number, .json]

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
