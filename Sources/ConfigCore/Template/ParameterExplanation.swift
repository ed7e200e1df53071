/// Why a parameter got what it got for one client: the answer of an admin dry run.
public struct ParameterExplanation: Sendable, Equatable, Codable {
    /// Which part of the parameter applied.
    public enum Source: String, Sendable, Codable {
        /// The conditional value of `condition`, the first true condition whose value applies to
        /// this client.
        case conditionalValue
        /// The default value: no conditional value applied.
        case defaultValue
        /// Nothing: no conditional value applied and the default value is missing or does not
        /// apply (a rollout or experiment the client is not in).
        case unset
    }

    /// What the client gets.
    public enum Effect: String, Sendable, Codable {
        /// `value` is served.
        case value
        /// `useInAppDefault`: the key is left out.
        case inAppDefault
        /// No value: the key is left out.
        case noValue
    }

    /// A rollout or an experiment met while resolving the parameter.
    public struct Assignment: Sendable, Equatable, Codable {
        public var rolloutId: String?
        public var experimentId: String?
        /// The client's variant; `nil` when it is not in the rollout or experiment.
        public var variantId: String?
        /// For a value passed over: its condition (`nil` for the default value).
        public var condition: String?

        public init(rolloutId: String? = nil, experimentId: String? = nil, variantId: String? = nil, condition: String? = nil) {
            self.rolloutId = rolloutId
            self.experimentId = experimentId
            self.variantId = variantId
            self.condition = condition
        }
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
    /// The rollout whose value is served.
    public var rollout: Assignment?
    /// The experiment and variant the client takes part in for this key: the variant's value is
    /// served, or for a `noChange` variant what the client gets without the experiment.
    public var experiment: Assignment?
    /// The personalization whose parameter serves its default value (no model here).
    public var personalizationId: String?
    /// Rollout and experiment values passed over because the client is not in them.
    public var passedOver: [Assignment]?

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
