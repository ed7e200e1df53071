/// A parameter (`RemoteConfigParameter`, spec §2.2).
public struct RemoteConfigParameter: Sendable, Equatable, Codable {
    /// Served when no condition with a conditional value is true; `nil` = the key is left out.
    public var defaultValue: ParameterValue?
    /// Values keyed by condition name; the earliest true condition in the template's condition
    /// order wins (§2.8).
    public var conditionalValues: [String: ParameterValue]
    public var description: String?
    /// Always written (spec §8.3); a missing or `PARAMETER_VALUE_TYPE_UNSPECIFIED` type reads as
    /// `STRING`, Firebase's default.
    public var valueType: ParameterValueType

    public init(
        defaultValue: ParameterValue? = nil,
        conditionalValues: [String: ParameterValue] = [:],
        description: String? = nil,
        valueType: ParameterValueType = .string
    ) {
        self.defaultValue = defaultValue
        self.conditionalValues = conditionalValues
        self.description = description
        self.valueType = valueType
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TemplateCodingKey.self)
        defaultValue = try container.decodeIfPresent(ParameterValue.self, "defaultValue")
        conditionalValues = try container.decodeIfPresent([String: ParameterValue].self, "conditionalValues") ?? [:]
        description = try container.decodeIfPresent(String.self, "description")
        let type = try container.decodeIfPresent(ParameterValueType.self, "valueType") ?? .string
        valueType = type == .unspecified ? .string : type
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TemplateCodingKey.self)
        try container.encodeIfPresent(defaultValue, forKey: "defaultValue")
        if !conditionalValues.isEmpty {
            try container.encode(conditionalValues, forKey: "conditionalValues")
        }
        try container.encodeIfPresent(description, forKey: "description")
        try container.encode(valueType, forKey: "valueType")
    }
}
