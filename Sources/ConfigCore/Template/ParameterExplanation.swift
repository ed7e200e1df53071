/// Why a parameter got what it got for one client: the answer of an admin dry run.
public struct ParameterExplanation: Sendable, Equatable, Codable {
    /// Which part of the parameter applied.
    public enum Source: String, Sendable, Codable {
        /// The conditional value of `condition`, the first true condition that has one.
        case conditionalValue
        /// The default value: no true condition has a conditional value.
        case defaultValue
        /// Nothing: no conditional value applied and there is no default value.
        case unset
    }

    /// What the client gets.
    public enum Effect: String, Sendable, Codable {
        /// `value` is served.
        case value
        /// `useInAppDefault`: the key is left out.
        case inAppDefault
        /// A rollout, personalization or experiment value, not evaluated here: the key is left out.
        case unsupportedValue
        /// No value: the key is left out.
        case noValue
    }

    public var key: String
    /// The group holding the parameter; `nil` at the top level.
    public var group: String?
    public var source: Source
    /// The deciding condition when `source` is `.conditionalValue`.
    public var condition: String?
    public var effect: Effect
    /// The served value when `effect` is `.value`.
    public var value: String?

    public init(key: String, group: String?, source: Source, condition: String?, effect: Effect, value: String?) {
        self.key = key
        self.group = group
        self.source = source
        self.condition = condition
        self.effect = effect
        self.value = value
    }
}

/// The whole dry run: each condition's outcome and each parameter's explanation.
public struct TemplateExplanation: Sendable, Equatable, Codable {
    /// One condition and whether it is true for the client.
    public struct ConditionResult: Sendable, Equatable, Codable {
        public var name: String
        public var value: Bool

        public init(name: String, value: Bool) {
            self.name = name
            self.value = value
        }
    }

    /// In template order.
    public var conditions: [ConditionResult]
    /// Sorted by key.
    public var parameters: [ParameterExplanation]

    public init(conditions: [ConditionResult], parameters: [ParameterExplanation]) {
        self.conditions = conditions
        self.parameters = parameters
    }
}
