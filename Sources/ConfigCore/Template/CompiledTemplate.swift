/// A template prepared for evaluation, built once per publish (or load) and shared by every
/// fetch of that version.
///
/// Conditions are parsed once; each parameter keeps only its conditional values that name a
/// condition, as `(conditionIndex, value)` in condition order, so resolving a parameter is a
/// walk over a few bits. Evaluation is split in two steps: `conditionOutcomes(for:)` runs the
/// conditions for one client and assigns it to the template's rollouts and experiment variants
/// (`InstanceAssignment`), and `served(for:)`/`entries(for:)`/`explain(for:)`/
/// `serverValues(for:inAppDefaults:)` resolve parameters from those outcomes alone (tests drive
/// the second step with outcome vectors; servers can cache answers per outcome vector).
///
/// A class: every fetch of a version reads the same instance, without copying its tables.
public final class CompiledTemplate: Sendable {
    /// The template this was compiled from.
    public let template: RemoteConfigTemplate
    public let namespace: TemplateNamespace
    /// Condition names in template (priority) order; index `i` is bit `i` of `ConditionOutcomes`.
    public let conditionNames: [String]
    private let conditions: [CompiledCondition]
    /// Conditions that read only inputs many clients share, by index.
    private let stableIndices: [Int]
    /// The others, which read the client's id or the time: the single percent rules as plain
    /// data, the rest (other percent rules, installation ids, time) by index.
    private let volatile: PercentChecks
    /// Every input the stable conditions read, in a fixed order.
    private let stableInputList: [ConditionInput]
    /// Whether each condition (by index) has a percent rule: its clients are split by a hash.
    public let splitsByPercent: [Bool]
    /// Whether a condition reads the time of the request, so that one client's outcomes may
    /// change while the version stays.
    public let readsTime: Bool
    /// One per key, sorted by key.
    let parameters: [CompiledParameter]
    /// The rollouts and experiments the parameters use; their bits follow the conditions'.
    let slots: AssignmentSlots
    /// Bits of an outcome vector: the conditions', then the slots'.
    private let outcomeCount: Int

    /// Compiles `template`; throws when a condition does not parse (which a validated template
    /// never does).
    ///
    /// Robust to templates that skipped validation: a conditional value naming no condition
    /// never applies, a duplicate condition name keeps its first condition, and a key defined
    /// twice keeps its top-level (else first group's) definition.
    public init(_ template: RemoteConfigTemplate, namespace: TemplateNamespace = .client) throws(TemplateValidationError) {
        var compiled: [CompiledCondition] = []
        var issues: [TemplateValidationError.Issue] = []
        var indexOfName: [String: Int] = [:]
        for (index, condition) in template.conditions.enumerated() {
            do {
                compiled.append(try CompiledCondition.compile(condition, at: index, namespace: namespace))
            } catch {
                issues += error.issues
            }
            if indexOfName[condition.name] == nil { indexOfName[condition.name] = index }
        }
        guard issues.isEmpty else { throw TemplateValidationError(issues: issues) }
        var seenKeys = Set<String>()
        self.template = template
        self.namespace = namespace
        self.conditionNames = template.conditions.map(\.name)
        self.conditions = compiled
        let reads = compiled.map { condition in
            var reads = ConditionReads()
            condition.collectReads(into: &reads)
            return reads
        }
        stableIndices = reads.indices.filter { !reads[$0].isVolatile }
        volatile = PercentChecks(conditions: compiled, volatile: reads.indices.filter { reads[$0].isVolatile })
        // Any fixed order will do: the list is read the same way for every client of this version.
        stableInputList = Array(Set(stableIndices.flatMap { reads[$0].inputs }))
        splitsByPercent = reads.map(\.readsPercent)
        readsTime = reads.contains { $0.readsTime }
        let entries = template.allParameters.filter { seenKeys.insert($0.key).inserted }
        var slots = AssignmentSlots.Builder(parameters: entries)
        self.parameters = entries.map { CompiledParameter($0, indexOfName: indexOfName, slots: &slots) }
        self.slots = slots.build(firstBit: compiled.count)
        outcomeCount = compiled.count + self.slots.bitCount
    }

    /// The same compiled template with `version` as its `version` block: a publish compiles
    /// its template once, before the store gives it a number.
    public func withVersion(_ version: TemplateVersion?) -> CompiledTemplate {
        CompiledTemplate(copying: self, version: version)
    }

    private init(copying other: CompiledTemplate, version: TemplateVersion?) {
        var template = other.template
        template.version = version
        self.template = template
        namespace = other.namespace
        conditionNames = other.conditionNames
        conditions = other.conditions
        stableIndices = other.stableIndices
        volatile = other.volatile
        stableInputList = other.stableInputList
        splitsByPercent = other.splitsByPercent
        readsTime = other.readsTime
        parameters = other.parameters
        slots = other.slots
        outcomeCount = other.outcomeCount
    }

    /// Evaluates every condition for one client, and assigns it to the rollouts and experiment
    /// variants those conditions reach.
    public func conditionOutcomes(for context: EvaluationContext) -> ConditionOutcomes {
        conditionOutcomes(for: context, stable: stableOutcomes(for: context))
    }

    /// Whether some conditions read only inputs that many clients share, so that their
    /// outcomes can be reused by `stableInputs(of:)`.
    public var hasStableConditions: Bool { !stableIndices.isEmpty }

    /// The values of every input the stable conditions read: clients with equal stable inputs
    /// have equal `stableOutcomes(for:)`.
    public func stableInputs(of context: EvaluationContext) -> StableInputs {
        StableInputs(values: stableInputList.map { $0.value(in: context) })
    }

    /// The outcomes of the stable conditions; the volatile ones and the assignments are false.
    public func stableOutcomes(for context: EvaluationContext) -> ConditionOutcomes {
        evaluate(stableIndices, for: context, into: ConditionOutcomes(count: outcomeCount))
    }

    /// Every outcome, given `stable` from `stableOutcomes(for:)` of a client with the same
    /// `stableInputs(of:)`: only the volatile conditions and the assignments are evaluated.
    public func conditionOutcomes(for context: EvaluationContext, stable: ConditionOutcomes) -> ConditionOutcomes {
        checkCount(stable)
        var outcomes = evaluate(volatile.others, for: context, into: stable)
        volatile.evaluate(into: &outcomes, id: context.clientInstanceId, defaultSeed: context.defaultPercentSeed)
        if !slots.isEmpty { slots.assign(&outcomes, appInstanceId: context.appInstanceId) }
        return outcomes
    }

    /// The outcomes of a client with the given condition results (in condition order) and
    /// instance id, which decides its rollouts and experiment variants: for tests and tools that
    /// pick conditions by hand.
    public func outcomes(conditions results: [Bool], appInstanceId: String? = nil) -> ConditionOutcomes {
        precondition(results.count == conditions.count, "\(results.count) results for a template with \(conditions.count) conditions")
        var outcomes = ConditionOutcomes(count: outcomeCount)
        for (index, result) in results.enumerated() where result {
            outcomes[index] = true
        }
        slots.assign(&outcomes, appInstanceId: appInstanceId)
        return outcomes
    }

    private func evaluate(_ indices: [Int], for context: EvaluationContext, into outcomes: ConditionOutcomes) -> ConditionOutcomes {
        var outcomes = outcomes
        // Over the buffer: each condition is evaluated in place, not copied out of the array.
        conditions.withUnsafeBufferPointer { conditions in
            for index in indices where conditions[index].evaluate(in: context) {
                outcomes[index] = true
            }
        }
        return outcomes
    }

    /// The fetch `entries` for a client with `outcomes`, sorted by key (spec §2.8): per
    /// parameter, the conditional value of the first true condition that has one, else the
    /// default value; `useInAppDefault` and missing values leave the key out. Rollout and
    /// experiment values apply to the instances assigned to them and are passed over for the
    /// others; a personalization value serves the default value.
    public func entries(for outcomes: ConditionOutcomes) -> [(key: String, value: String)] {
        served(for: outcomes).entries
    }

    /// The entries of `entries(for:)` with the rollouts and experiments that decided them.
    public func served(for outcomes: ConditionOutcomes) -> ServedConfig {
        checkCount(outcomes)
        var entries: [(key: String, value: String)] = []
        entries.reserveCapacity(parameters.count)
        var rolloutKeys: [Int: [String]] = [:]
        var experimentKeys: [Int: (variant: Int, keys: [String])] = [:]
        for parameter in parameters {
            let resolution = parameter.resolve(outcomes, slots)
            if case .value(let value) = resolution.effect {
                entries.append((parameter.key, value))
            }
            if let slot = resolution.rollout {
                rolloutKeys[slot, default: []].append(parameter.key)
            }
            if let (slot, variant) = resolution.experiment {
                experimentKeys[slot, default: (variant, [])].keys.append(parameter.key)
            }
        }
        var served = ServedConfig(entries: entries)
        for (slot, keys) in rolloutKeys {
            guard case .rollout(let rolloutId, _) = slots.slots[slot].kind else { continue }
            served.rollouts.append(RolloutMembership(rolloutId: rolloutId, affectedParameterKeys: keys))
        }
        for (slot, membership) in experimentKeys {
            guard case .experiment(let experimentId, _, let variantIds) = slots.slots[slot].kind else { continue }
            served.experiments.append(ExperimentMembership(
                experimentId: experimentId, variantId: variantIds[membership.variant], affectedParameterKeys: membership.keys))
        }
        served.rollouts = Self.merged(served.rollouts, id: \.rolloutId) {
            $0.affectedParameterKeys = ($0.affectedParameterKeys + $1.affectedParameterKeys).sorted()
        }
        served.experiments = Self.merged(served.experiments, id: \.experimentId) {
            $0.affectedParameterKeys = ($0.affectedParameterKeys + $1.affectedParameterKeys).sorted()
        }
        return served
    }

    /// `items` sorted by `id`, those of equal id merged into the first (one rollout at two
    /// percents is two slots, and one metadata entry); affected keys sorted.
    private static func merged<Item>(_ items: [Item], id: KeyPath<Item, String>, merge: (inout Item, Item) -> Void) -> [Item] {
        var result: [Item] = []
        for item in items.sorted(by: { $0[keyPath: id] < $1[keyPath: id] }) {
            if let last = result.last, last[keyPath: id] == item[keyPath: id] {
                merge(&result[result.count - 1], item)
            } else {
                result.append(item)
            }
        }
        return result
    }

    /// Every condition's outcome and, per parameter, what decided its value: for an admin dry run.
    public func explain(for outcomes: ConditionOutcomes) -> TemplateExplanation {
        checkCount(outcomes)
        let conditionResults = conditionNames.indices.map {
            TemplateExplanation.ConditionResult(name: conditionNames[$0], value: outcomes[$0])
        }
        let explanations = parameters.map { parameter in
            let resolution = parameter.resolve(outcomes, slots)
            let source: ParameterExplanation.Source =
                resolution.conditionIndex != nil ? .conditionalValue : resolution.decidedByDefault ? .defaultValue : .unset
            var explanation = ParameterExplanation(
                key: parameter.key, group: parameter.group, source: source,
                condition: resolution.conditionIndex.map { conditionNames[$0] }, effect: .noValue, value: nil
            )
            switch resolution.effect {
            case .value(let string):
                explanation.effect = .value
                explanation.value = string
            case .inAppDefault: explanation.effect = .inAppDefault
            case .none: break
            }
            explanation.rollout = resolution.rollout.map { assignment(of: $0, included: true, variant: nil, condition: nil) }
            explanation.experiment = resolution.experiment.map { assignment(of: $0.slot, included: true, variant: $0.variant, condition: nil) }
            explanation.personalizationId = resolution.personalizationId
            let passedOver = resolution.passedOver.map { assignment(of: $0.slot, included: false, variant: nil, condition: $0.condition) }
            explanation.passedOver = passedOver.isEmpty ? nil : passedOver
            return explanation
        }
        return TemplateExplanation(conditions: conditionResults, parameters: explanations)
    }

    /// Names slot `index` for an explanation: its rollout, or its experiment and `variant`.
    private func assignment(of index: Int, included: Bool, variant: Int?, condition: Int?) -> ParameterExplanation.Assignment {
        let conditionName = condition.map { conditionNames[$0] }
        switch slots.slots[index].kind {
        case .rollout(let rolloutId, _):
            return .init(rolloutId: rolloutId, variantId: included ? RolloutMembership.enabledVariantId : nil, condition: conditionName)
        case .experiment(let experimentId, _, let variantIds):
            return .init(experimentId: experimentId, variantId: variant.map { variantIds[$0] }, condition: conditionName)
        }
    }

    /// The Admin SDKs' server-template evaluation (spec §5.5): start from `inAppDefaults`
    /// (source `default`), then every template value that applies replaces it (source `remote`);
    /// `useInAppDefault` leaves the key as it was (server templates hold no rollout, experiment
    /// or personalization values). A key in neither
    /// is absent; read it as `ResolvedValue.static`.
    public func serverValues(for outcomes: ConditionOutcomes, inAppDefaults: [String: String] = [:]) -> [String: ResolvedValue] {
        var result = inAppDefaults.mapValues { ResolvedValue(value: $0, source: .default) }
        for (key, value) in entries(for: outcomes) {
            result[key] = ResolvedValue(value: value, source: .remote)
        }
        return result
    }

    /// The template as `serverRemoteConfig` returns it (spec §5.1): conditions as structured
    /// `{name, condition}` in the same order, every parameter at the top level (the Admin SDKs'
    /// server template has no groups), and the version.
    ///
    /// - Precondition: compiled for `.server`.
    public var serverRemoteConfig: RemoteConfigTemplate {
        precondition(namespace.kind == .server, "serverRemoteConfig is the form of server templates")
        let structured = zip(conditionNames, conditions).map { name, condition in
            guard case .structured(_, let json) = condition else {
                preconditionFailure("server templates compile every condition to a structured one")
            }
            return RemoteConfigCondition(name: name, condition: json)
        }
        var flat: [String: RemoteConfigParameter] = [:]
        for entry in template.allParameters where flat[entry.key] == nil {
            flat[entry.key] = entry.parameter
        }
        return RemoteConfigTemplate(conditions: structured, parameters: flat, version: template.version)
    }

    func checkCount(_ outcomes: ConditionOutcomes) {
        precondition(outcomes.count == outcomeCount, "\(outcomes.count) outcomes for a template with \(outcomeCount) (conditions and assignments)")
    }
}
