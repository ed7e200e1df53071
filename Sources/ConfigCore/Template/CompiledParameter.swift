/// A parameter reduced to what resolution needs.
struct CompiledParameter: Sendable {
    /// A parameter value with its rollout or experiment slot found at compile time.
    enum Value: Sendable {
        case value(String)
        case useInAppDefault
        case personalization(id: String)
        case rollout(slot: Int, value: String)
        /// `values[i]` is served to variant `i` of the slot's sorted variant ids; `nil` (a
        /// `noChange` variant, or one this parameter does not list) keeps what the instance
        /// would get without the experiment.
        case experiment(slot: Int, values: [String?])
    }

    struct Candidate: Sendable {
        let conditionIndex: Int
        let value: Value
    }

    let key: String
    let group: String?
    /// Conditional values in condition order.
    let candidates: [Candidate]
    let defaultValue: Value?

    init(_ entry: RemoteConfigTemplate.ParameterEntry, indexOfName: [String: Int], slots: inout AssignmentSlots.Builder) {
        key = entry.key
        group = entry.group
        candidates = entry.parameter.conditionalValues
            .compactMap { name, value in indexOfName[name].map { (index: $0, value: value) } }
            .sorted { $0.index < $1.index }
            .map { Candidate(conditionIndex: $0.index, value: Self.compile($0.value, usedAt: $0.index, slots: &slots)) }
        defaultValue = entry.parameter.defaultValue.map { Self.compile($0, usedAt: nil, slots: &slots) }
    }

    private static func compile(_ value: ParameterValue, usedAt condition: Int?, slots: inout AssignmentSlots.Builder) -> Value {
        switch value {
        case .value(let string):
            return .value(string)
        case .useInAppDefault:
            return .useInAppDefault
        case .personalization(let personalization):
            return .personalization(id: personalization.personalizationId)
        case .rollout(let rollout):
            let kind = AssignmentSlots.Kind.rollout(rolloutId: rollout.rolloutId, microPercent: InstanceAssignment.microPercent(rollout.percent))
            return .rollout(slot: slots.slot(kind, usedAt: condition), value: rollout.value)
        case .experiment(let experiment):
            let variantIds = slots.variantIds[experiment.experimentId] ?? []
            let kind = AssignmentSlots.Kind.experiment(
                experimentId: experiment.experimentId,
                exposureMicroPercent: InstanceAssignment.microPercent(experiment.exposurePercent ?? 100),
                variantIds: variantIds)
            let values = variantIds.map { id in experiment.variantValue.first { $0.variantId == id }?.value }
            return .experiment(slot: slots.slot(kind, usedAt: condition), values: values)
        }
    }

    /// Walks the conditional values of the true conditions in order, then the default value:
    /// the first `value` or `useInAppDefault` decides. A rollout decides when the instance is in
    /// it, and an experiment when the instance's variant has a value; otherwise the walk goes on
    /// as if they were absent. A personalization sends the walk to the default value.
    func resolve(_ outcomes: ConditionOutcomes, _ slots: AssignmentSlots) -> Resolution {
        var resolution = Resolution()
        for candidate in candidates where outcomes[candidate.conditionIndex] {
            if resolution.apply(candidate.value, at: candidate.conditionIndex, outcomes, slots) { return resolution }
            if resolution.personalizationId != nil { break }
        }
        if let defaultValue, resolution.apply(defaultValue, at: nil, outcomes, slots) {
            resolution.decidedByDefault = true
        }
        return resolution
    }
}

/// What decided one parameter for one client.
struct Resolution {
    enum Effect {
        case value(String)
        case inAppDefault
        /// Nothing applied: the key is left out.
        case none
    }

    var effect = Effect.none
    /// The condition of the deciding conditional value; `nil` for the default value or none.
    var conditionIndex: Int?
    var decidedByDefault = false
    /// The rollout slot whose value is served.
    var rollout: Int?
    /// The experiment slot and variant the instance takes part in for this key.
    var experiment: (slot: Int, variant: Int)?
    /// Whether `experiment`'s variant value decided (not a `noChange` variant passed on).
    var decidedByExperiment = false
    /// The personalization that sent the walk to the default value.
    var personalizationId: String?
    /// Rollout and experiment values the instance is not in, with their conditions.
    var passedOver: [(slot: Int, condition: Int?)] = []

    /// Applies `value` of `condition` (`nil`: the default value); true when it decides.
    mutating func apply(_ value: CompiledParameter.Value, at condition: Int?, _ outcomes: ConditionOutcomes, _ slots: AssignmentSlots) -> Bool {
        switch value {
        case .value(let string):
            effect = .value(string)
        case .useInAppDefault:
            effect = .inAppDefault
        case .personalization(let id):
            personalizationId = personalizationId ?? id
            return false
        case .rollout(let slot, let string):
            guard slots.isInRollout(slot, outcomes) else {
                passedOver.append((slot, condition))
                return false
            }
            rollout = slot
            effect = .value(string)
        case .experiment(let slot, let values):
            guard let variant = slots.variant(slot, outcomes) else {
                passedOver.append((slot, condition))
                return false
            }
            // The experiment that decides is the one reported; a `noChange` one only until then.
            guard let string = values[variant] else {
                if experiment == nil { experiment = (slot, variant) }
                return false
            }
            experiment = (slot, variant)
            decidedByExperiment = true
            effect = .value(string)
        }
        conditionIndex = condition
        return true
    }
}
