/// One value of a parameter, default or conditional (`RemoteConfigParameterValue`, spec §2.2):
/// exactly one member of `value`, `useInAppDefault`, `personalizationValue`, `rolloutValue`,
/// `experimentValue`.
///
/// Rollout and experiment values apply to the instances `InstanceAssignment` puts in them (our
/// assignment: Google's is not public); a personalization value serves the parameter's default
/// value, for want of a personalization model. All round-trip unchanged.
public enum ParameterValue: Sendable, Hashable, Codable {
    /// `{"value": "..."}`.
    case value(String)
    /// `{"useInAppDefault": true}`: the key is left out, the app uses its in-app default.
    case useInAppDefault
    /// `{"personalizationValue": {...}}`.
    case personalization(PersonalizationValue)
    /// `{"rolloutValue": {...}}`.
    case rollout(RolloutValue)
    /// `{"experimentValue": {...}}`.
    case experiment(ExperimentValue)

    /// The member name this value is written under, e.g. `rolloutValue`.
    public var kind: String {
        switch self {
        case .value: "value"
        case .useInAppDefault: "useInAppDefault"
        case .personalization: "personalizationValue"
        case .rollout: "rolloutValue"
        case .experiment: "experimentValue"
        }
    }

    /// Every string this value can serve: checked against `valueType` and counted in the
    /// template's total value size.
    public var servedStrings: [String] {
        switch self {
        case .value(let value): [value]
        case .useInAppDefault, .personalization: []
        case .rollout(let rollout): [rollout.value]
        case .experiment(let experiment): experiment.variantValue.compactMap(\.value)
        }
    }

    private static let kinds: [TemplateCodingKey] = [
        "value", "useInAppDefault", "personalizationValue", "rolloutValue", "experimentValue",
    ]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TemplateCodingKey.self)
        let present = Self.kinds.compactMap { name in
            container.presentKey(name).map { (name: name, key: $0) }
        }
        guard present.count == 1, let found = present.first else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: container.codingPath,
                debugDescription: "a parameter value needs exactly one of value, useInAppDefault, "
                    + "personalizationValue, rolloutValue, experimentValue"
                    + (present.isEmpty ? "" : " (found " + present.map(\.name.stringValue).joined(separator: ", ") + ")")
            ))
        }
        let key = found.key
        switch found.name.stringValue {
        case "value":
            self = .value(try container.decode(String.self, forKey: key))
        case "useInAppDefault":
            guard try container.decode(Bool.self, forKey: key) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container, debugDescription: "useInAppDefault must be true when present"
                )
            }
            self = .useInAppDefault
        case "personalizationValue":
            self = .personalization(try container.decode(PersonalizationValue.self, forKey: key))
        case "rolloutValue":
            self = .rollout(try container.decode(RolloutValue.self, forKey: key))
        default:
            self = .experiment(try container.decode(ExperimentValue.self, forKey: key))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TemplateCodingKey.self)
        let key = TemplateCodingKey(kind)
        switch self {
        case .value(let value): try container.encode(value, forKey: key)
        case .useInAppDefault: try container.encode(true, forKey: key)
        case .personalization(let value): try container.encode(value, forKey: key)
        case .rollout(let value): try container.encode(value, forKey: key)
        case .experiment(let value): try container.encode(value, forKey: key)
        }
    }
}
