/// What one evaluation of a parameter served, as usage counts it (docs/insights.md): the part of
/// the parameter that decided it and a digest of the value, so that "one value for every client"
/// can be told without keeping the values.
public struct ParameterUse: Sendable, Hashable {
    public var key: String
    /// `default`, `condition:<name>`, `rollout:<rolloutId>`, `experiment:<experimentId>/<variantId>`
    /// or `inAppDefault` (`UsageSource`).
    public var source: String
    /// `UsageSource.digest(of:)` of the served value; `UsageSource.inAppDefaultDigest` when the key
    /// was left out and the client kept its in-app default.
    public var valueDigest: Int64

    public init(key: String, source: String, valueDigest: Int64) {
        self.key = key
        self.source = source
        self.valueDigest = valueDigest
    }
}

/// The names of the sources a served value comes from, as the usage report shows them.
public enum UsageSource {
    public static let defaultValue = "default"
    public static let inAppDefault = "inAppDefault"

    public static func condition(_ name: String) -> String { "condition:" + name }
    public static func rollout(_ rolloutId: String) -> String { "rollout:" + rolloutId }
    public static func experiment(_ experimentId: String, variant: String) -> String { "experiment:\(experimentId)/\(variant)" }

    /// The digest of a key left out of the answer (no 64-bit FNV-1a of a value is known to be 0).
    public static let inAppDefaultDigest: Int64 = 0

    /// 64-bit FNV-1a of `value`'s UTF-8, stable across processes and nodes.
    public static func digest(of value: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in value.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}

extension CompiledTemplate {
    /// Every key of the template, sorted.
    public var parameterKeys: [String] { parameters.map(\.key) }

    /// What each parameter served a client with `outcomes`, sorted by key: the expansion of one
    /// counted answer into its keys, done when the counts are written, never per request.
    public func uses(for outcomes: ConditionOutcomes) -> [ParameterUse] {
        checkCount(outcomes)
        return parameters.map { use(of: $0, outcomes) }
    }

    /// What `key` served a client with `outcomes` (an OpenFeature evaluation of one flag); nil
    /// for a key the template does not have.
    public func use(of key: String, for outcomes: ConditionOutcomes) -> ParameterUse? {
        checkCount(outcomes)
        var lower = 0, upper = parameters.count
        while lower < upper {
            let middle = (lower + upper) / 2
            if parameters[middle].key < key { lower = middle + 1 } else { upper = middle }
        }
        guard lower < parameters.count, parameters[lower].key == key else { return nil }
        return use(of: parameters[lower], outcomes)
    }

    private func use(of parameter: CompiledParameter, _ outcomes: ConditionOutcomes) -> ParameterUse {
        let resolution = parameter.resolve(outcomes, slots)
        guard case .value(let value) = resolution.effect else {
            return ParameterUse(key: parameter.key, source: UsageSource.inAppDefault, valueDigest: UsageSource.inAppDefaultDigest)
        }
        let source: String
        if let slot = resolution.rollout, case .rollout(let rolloutId, _) = slots.slots[slot].kind {
            source = UsageSource.rollout(rolloutId)
        } else if resolution.decidedByExperiment, let (slot, variant) = resolution.experiment,
                  case .experiment(let experimentId, _, let variantIds) = slots.slots[slot].kind {
            source = UsageSource.experiment(experimentId, variant: variantIds[variant])
        } else if let condition = resolution.conditionIndex {
            source = UsageSource.condition(conditionNames[condition])
        } else {
            source = UsageSource.defaultValue
        }
        return ParameterUse(key: parameter.key, source: source, valueDigest: UsageSource.digest(of: value))
    }
}
