/// The rollouts and experiments a template uses, and where each client's assignment to them is
/// kept: in bits of `ConditionOutcomes` after the conditions' bits.
///
/// Keeping assignments in the outcomes makes them part of everything keyed by outcomes (cached
/// fetch answers above all), so two clients share an answer only when they share conditions,
/// rollouts and variants. A rollout takes one bit (the instance is in it); an experiment one bit
/// per variant, at most one of them set (the instance is exposed, with that variant).
struct AssignmentSlots: Sendable {
    enum Kind: Sendable, Hashable {
        case rollout(rolloutId: String, microPercent: UInt64)
        /// `variantIds` is every variant of the experiment in the template, sorted.
        case experiment(experimentId: String, exposureMicroPercent: UInt64, variantIds: [String])
    }

    struct Slot: Sendable {
        let kind: Kind
        /// The slot's first bit in the outcomes.
        let firstBit: Int
        let bitCount: Int
        /// Conditions whose conditional values use the slot: it is assigned only when one of
        /// them is true, or always when a default value uses it. Clients that cannot reach a
        /// rollout do not pay its hash, nor split the answer cache on it.
        let conditions: [Int]
        let usedByDefault: Bool
    }

    let slots: [Slot]
    /// Bits of all slots together.
    let bitCount: Int

    static let none = AssignmentSlots(slots: [], bitCount: 0)

    var isEmpty: Bool { slots.isEmpty }

    /// Sets the bits of every slot the outcomes' conditions reach, for the client `appInstanceId`
    /// (none without one: percent rules need an instance, and so do rollouts).
    func assign(_ outcomes: inout ConditionOutcomes, appInstanceId: String?) {
        guard let appInstanceId, !appInstanceId.isEmpty else { return }
        for slot in slots where slot.usedByDefault || slot.conditions.contains(where: { outcomes[$0] }) {
            switch slot.kind {
            case .rollout(let rolloutId, let microPercent):
                if InstanceAssignment.isIncluded(id: rolloutId, microPercent: microPercent, appInstanceId: appInstanceId) {
                    outcomes[slot.firstBit] = true
                }
            case .experiment(let experimentId, let exposure, let variantIds):
                guard !variantIds.isEmpty,
                      InstanceAssignment.isIncluded(id: experimentId, microPercent: exposure, appInstanceId: appInstanceId) else { continue }
                let variant = InstanceAssignment.variantIndex(experimentId: experimentId, variantCount: variantIds.count, appInstanceId: appInstanceId)
                outcomes[slot.firstBit + variant] = true
            }
        }
    }

    /// Whether the client of `outcomes` is in rollout slot `index`.
    func isInRollout(_ index: Int, _ outcomes: ConditionOutcomes) -> Bool {
        outcomes[slots[index].firstBit]
    }

    /// The variant (an index into the experiment's sorted variant ids) of the client of
    /// `outcomes` in experiment slot `index`; `nil` when it is not exposed.
    func variant(_ index: Int, _ outcomes: ConditionOutcomes) -> Int? {
        let slot = slots[index]
        return (0..<slot.bitCount).first { outcomes[slot.firstBit + $0] }
    }
}

extension AssignmentSlots {
    /// Collects the slots while parameters are compiled.
    struct Builder {
        /// Every variant id of each experiment, over all its values in the template, sorted, so
        /// that one instance gets the same variant in every parameter of an experiment.
        let variantIds: [String: [String]]
        private var kinds: [Kind] = []
        private var indexOfKind: [Kind: Int] = [:]
        private var conditions: [Set<Int>] = []
        private var usedByDefault: [Bool] = []

        init(parameters: [RemoteConfigTemplate.ParameterEntry]) {
            var variants: [String: Set<String>] = [:]
            for entry in parameters {
                let values = Array(entry.parameter.conditionalValues.values) + (entry.parameter.defaultValue.map { [$0] } ?? [])
                for case .experiment(let experiment) in values {
                    variants[experiment.experimentId, default: []].formUnion(experiment.variantValue.map(\.variantId))
                }
            }
            variantIds = variants.mapValues { $0.sorted() }
        }

        /// The slot of `kind`, used by the conditional value of `condition` (`nil`: a default value).
        mutating func slot(_ kind: Kind, usedAt condition: Int?) -> Int {
            let index: Int
            if let known = indexOfKind[kind] {
                index = known
            } else {
                index = kinds.count
                kinds.append(kind)
                indexOfKind[kind] = index
                conditions.append([])
                usedByDefault.append(false)
            }
            if let condition {
                conditions[index].insert(condition)
            } else {
                usedByDefault[index] = true
            }
            return index
        }

        /// The slots, their bits starting at `firstBit` (the number of conditions).
        func build(firstBit: Int) -> AssignmentSlots {
            var next = firstBit
            let slots = kinds.indices.map { index in
                let bits: Int
                switch kinds[index] {
                case .rollout: bits = 1
                case .experiment(_, _, let variantIds): bits = variantIds.count
                }
                defer { next += bits }
                return Slot(kind: kinds[index], firstBit: next, bitCount: bits,
                            conditions: conditions[index].sorted(), usedByDefault: usedByDefault[index])
            }
            return AssignmentSlots(slots: slots, bitCount: next - firstBit)
        }
    }
}
