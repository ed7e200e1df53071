/// A template prepared for evaluation, built once per publish (or load) and shared by every
/// fetch of that version.
///
/// Conditions are parsed once; each parameter keeps only its conditional values that name a
/// condition, as `(conditionIndex, value)` in condition order, so resolving a parameter is a
/// walk over a few bits. Evaluation is split in two steps: `conditionOutcomes(for:)` runs the
/// conditions for one client, and `entries(for:)`/`explain(for:)`/`serverValues(for:inAppDefaults:)`
/// resolve parameters from those outcomes alone (tests drive the second step with outcome
/// vectors; servers can cache answers per outcome vector).
///
/// A class: every fetch of a version reads the same instance, without copying its tables.
public final class CompiledTemplate: Sendable {
    /// The template this was compiled from.
    public let template: RemoteConfigTemplate
    public let namespace: TemplateNamespace
    /// Condition names in template (priority) order; index `i` is bit `i` of `ConditionOutcomes`.
    public let conditionNames: [String]
    private let conditions: [CompiledCondition]
    /// Conditions that read only inputs many clients share, and the others (percent rules,
    /// installation ids, time), by index.
    private let stableIndices: [Int]
    private let volatileIndices: [Int]
    /// Every input the stable conditions read, in a fixed order.
    private let stableInputList: [ConditionInput]
    /// One per key, sorted by key.
    private let parameters: [CompiledParameter]

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
        volatileIndices = reads.indices.filter { reads[$0].isVolatile }
        // Any fixed order will do: the list is read the same way for every client of this version.
        stableInputList = Array(Set(stableIndices.flatMap { reads[$0].inputs }))
        self.parameters = template.allParameters.compactMap { entry in
            guard seenKeys.insert(entry.key).inserted else { return nil }
            return CompiledParameter(entry, indexOfName: indexOfName)
        }
    }

    /// Evaluates every condition for one client.
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

    /// The outcomes of the stable conditions; the volatile ones are false.
    public func stableOutcomes(for context: EvaluationContext) -> ConditionOutcomes {
        evaluate(stableIndices, for: context, into: ConditionOutcomes(count: conditions.count))
    }

    /// Every outcome, given `stable` from `stableOutcomes(for:)` of a client with the same
    /// `stableInputs(of:)`: only the volatile conditions are evaluated.
    public func conditionOutcomes(for context: EvaluationContext, stable: ConditionOutcomes) -> ConditionOutcomes {
        checkCount(stable)
        return evaluate(volatileIndices, for: context, into: stable)
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
    /// default value; `useInAppDefault`, missing and not-evaluated values leave the key out.
    public func entries(for outcomes: ConditionOutcomes) -> [(key: String, value: String)] {
        checkCount(outcomes)
        var result: [(key: String, value: String)] = []
        result.reserveCapacity(parameters.count)
        for parameter in parameters {
            if case .value(let value)? = parameter.resolve(outcomes).value {
                result.append((parameter.key, value))
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
            let (conditionIndex, value) = parameter.resolve(outcomes)
            let source: ParameterExplanation.Source =
                conditionIndex != nil ? .conditionalValue : value != nil ? .defaultValue : .unset
            let effect: ParameterExplanation.Effect
            var served: String?
            switch value {
            case .value(let string)?:
                effect = .value
                served = string
            case .useInAppDefault?: effect = .inAppDefault
            case .personalization?, .rollout?, .experiment?: effect = .unsupportedValue
            case nil: effect = .noValue
            }
            return ParameterExplanation(
                key: parameter.key, group: parameter.group, source: source,
                condition: conditionIndex.map { conditionNames[$0] }, effect: effect, value: served
            )
        }
        return TemplateExplanation(conditions: conditionResults, parameters: explanations)
    }

    /// The Admin SDKs' server-template evaluation (spec §5.5): start from `inAppDefaults`
    /// (source `default`), then every template value that applies replaces it (source `remote`);
    /// `useInAppDefault` and values not evaluated here leave the key as it was. A key in neither
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
        precondition(namespace == .server, "serverRemoteConfig is the form of server templates")
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

    private func checkCount(_ outcomes: ConditionOutcomes) {
        precondition(outcomes.count == conditions.count, "outcomes of \(outcomes.count) conditions for a template with \(conditions.count)")
    }
}

/// A parameter reduced to what resolution needs.
private struct CompiledParameter: Sendable {
    struct Candidate: Sendable {
        let conditionIndex: Int
        let value: ParameterValue
    }

    let key: String
    let group: String?
    /// Conditional values in condition order.
    let candidates: [Candidate]
    let defaultValue: ParameterValue?

    init(_ entry: RemoteConfigTemplate.ParameterEntry, indexOfName: [String: Int]) {
        key = entry.key
        group = entry.group
        defaultValue = entry.parameter.defaultValue
        candidates = entry.parameter.conditionalValues
            .compactMap { name, value in indexOfName[name].map { Candidate(conditionIndex: $0, value: value) } }
            .sorted { $0.conditionIndex < $1.conditionIndex }
    }

    /// The deciding condition (`nil` for the default value) and the value that applies.
    func resolve(_ outcomes: ConditionOutcomes) -> (conditionIndex: Int?, value: ParameterValue?) {
        for candidate in candidates where outcomes[candidate.conditionIndex] {
            return (candidate.conditionIndex, candidate.value)
        }
        return (nil, defaultValue)
    }
}
