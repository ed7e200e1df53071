/// `personalizationValue`: the value comes from a Firebase Personalization.
public struct PersonalizationValue: Sendable, Hashable, Codable {
    public var personalizationId: String

    public init(personalizationId: String) { self.personalizationId = personalizationId }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TemplateCodingKey.self)
        personalizationId = try container.decode(String.self, "personalizationId")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TemplateCodingKey.self)
        try container.encode(personalizationId, forKey: "personalizationId")
    }
}

/// `rolloutValue`: `value` is served to `percent` (1–100) of the instances of a rollout.
public struct RolloutValue: Sendable, Hashable, Codable {
    public var rolloutId: String
    public var value: String
    public var percent: Double

    public init(rolloutId: String, value: String, percent: Double) {
        self.rolloutId = rolloutId
        self.value = value
        self.percent = percent
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TemplateCodingKey.self)
        rolloutId = try container.decode(String.self, "rolloutId")
        value = try container.decode(String.self, "value")
        percent = try container.decode(Double.self, "percent")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TemplateCodingKey.self)
        try container.encode(rolloutId, forKey: "rolloutId")
        try container.encode(value, forKey: "value")
        try container.encode(percent, forKey: "percent")
    }
}

/// `experimentValue`: the values of an A/B test's variants.
public struct ExperimentValue: Sendable, Hashable, Codable {
    public var experimentId: String
    public var variantValue: [ExperimentVariantValue]
    /// 0–100; optional.
    public var exposurePercent: Double?

    public init(experimentId: String, variantValue: [ExperimentVariantValue], exposurePercent: Double? = nil) {
        self.experimentId = experimentId
        self.variantValue = variantValue
        self.exposurePercent = exposurePercent
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TemplateCodingKey.self)
        experimentId = try container.decode(String.self, "experimentId")
        variantValue = try container.decodeIfPresent([ExperimentVariantValue].self, "variantValue") ?? []
        exposurePercent = try container.decodeIfPresent(Double.self, "exposurePercent")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TemplateCodingKey.self)
        try container.encode(experimentId, forKey: "experimentId")
        try container.encode(variantValue, forKey: "variantValue")
        try container.encodeIfPresent(exposurePercent, forKey: "exposurePercent")
    }
}

/// One variant of an `experimentValue`: `{"variantId", "value"}` or `{"variantId", "noChange": true}`.
public struct ExperimentVariantValue: Sendable, Hashable, Codable {
    public var variantId: String
    /// `nil` for a `noChange` variant.
    public var value: String?
    /// The variant keeps whatever the parameter would otherwise be.
    public var noChange: Bool

    public init(variantId: String, value: String?, noChange: Bool = false) {
        self.variantId = variantId
        self.value = value
        self.noChange = noChange
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TemplateCodingKey.self)
        variantId = try container.decode(String.self, "variantId")
        value = try container.decodeIfPresent(String.self, "value")
        noChange = try container.decodeIfPresent(Bool.self, "noChange") ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TemplateCodingKey.self)
        try container.encode(variantId, forKey: "variantId")
        try container.encodeIfPresent(value, forKey: "value")
        if noChange { try container.encode(true, forKey: "noChange") }
    }
}
