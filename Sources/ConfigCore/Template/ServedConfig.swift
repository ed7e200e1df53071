/// What one client gets from a template: the fetch answer's `entries`, and the rollouts and
/// experiments behind them (`rolloutMetadata`, `experimentDescriptions`; spec §3.3).
public struct ServedConfig: Sendable {
    /// Sorted by key.
    public var entries: [(key: String, value: String)]
    /// The rollouts the client is in, sorted by id.
    public var rollouts: [RolloutMembership]
    /// The experiments the client is exposed to, sorted by id.
    public var experiments: [ExperimentMembership]

    public init(entries: [(key: String, value: String)], rollouts: [RolloutMembership] = [], experiments: [ExperimentMembership] = []) {
        self.entries = entries
        self.rollouts = rollouts
        self.experiments = experiments
    }
}

/// A rollout a client is in: one `rolloutMetadata` entry of a fetch answer.
public struct RolloutMembership: Sendable, Hashable {
    /// The `variantId` of an instance that is in a rollout (ours; Firebase's is not public).
    public static let enabledVariantId = "enabled"

    public var rolloutId: String
    public var variantId: String
    /// The keys whose value the rollout decided for this client, sorted.
    public var affectedParameterKeys: [String]

    public init(rolloutId: String, variantId: String = Self.enabledVariantId, affectedParameterKeys: [String]) {
        self.rolloutId = rolloutId
        self.variantId = variantId
        self.affectedParameterKeys = affectedParameterKeys
    }
}

/// An experiment a client is exposed to: one `experimentDescriptions` entry of a fetch answer.
public struct ExperimentMembership: Sendable, Hashable {
    public var experimentId: String
    public var variantId: String
    /// The keys of the experiment this client reads, sorted (a `noChange` variant's too).
    public var affectedParameterKeys: [String]

    public init(experimentId: String, variantId: String, affectedParameterKeys: [String]) {
        self.experimentId = experimentId
        self.variantId = variantId
        self.affectedParameterKeys = affectedParameterKeys
    }
}
