/// What promoting chosen parts of one environment's template into another's makes
/// (docs/environments.md, "Promote"). Promoting the whole template publishes the source
/// version's bytes as they are; this is for the parameters and conditions a promotion names.
public enum TemplatePromotion {
    /// Why the chosen parts cannot be promoted.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// `target` with the chosen `parameters` and `conditions` of `source`:
    /// - each chosen parameter as `source` has it, in the group `source` keeps it in (made in
    ///   `target` with its description when `target` has no such group), or removed from
    ///   `target` when `source` has none;
    /// - each chosen condition, and each condition a chosen parameter's values name, as `source`
    ///   defines it: in place of `target`'s of that name, or else added where `source`'s order
    ///   puts it (before the first of `target`'s conditions that follows it in `source`), so
    ///   their priorities keep `source`'s order.
    /// - Throws: `Problem` for a parameter neither has or a condition `source` lacks.
    public static func promote(
        parameters: [String], conditions: [String], of source: RemoteConfigTemplate, into target: RemoteConfigTemplate
    ) throws(Problem) -> RemoteConfigTemplate {
        var promoted = target
        let sourceEntries = Dictionary(source.allParameters.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        var wantedConditions = conditions
        for key in parameters {
            let entry = sourceEntries[key]
            guard entry != nil || target.allParameters.contains(where: { $0.key == key }) else {
                throw Problem(description: "neither environment's template has the parameter '\(key)'")
            }
            remove(key, from: &promoted)
            guard let entry else { continue }
            if let group = entry.group {
                if promoted.parameterGroups[group] == nil {
                    promoted.parameterGroups[group] = ParameterGroup(description: source.parameterGroups[group]?.description)
                }
                promoted.parameterGroups[group]?.parameters[key] = entry.parameter
            } else {
                promoted.parameters[key] = entry.parameter
            }
            wantedConditions += entry.parameter.conditionalValues.keys.sorted()
        }
        for name in wantedConditions {
            guard let index = source.conditions.firstIndex(where: { $0.name == name }) else {
                throw Problem(description: "the source template has no condition '\(name)'")
            }
            place(source.conditions[index], before: source.conditions[(index + 1)...], in: &promoted)
        }
        return promoted
    }

    /// Removes `key` wherever `template` has it; groups left empty stay (their description may
    /// matter to whoever made them).
    private static func remove(_ key: String, from template: inout RemoteConfigTemplate) {
        template.parameters[key] = nil
        for group in template.parameterGroups.keys { template.parameterGroups[group]?.parameters[key] = nil }
    }

    /// Puts `condition` in `template`: over its namesake, or before the first condition of
    /// `template` that `following` (the source's conditions after it) names.
    private static func place(
        _ condition: RemoteConfigCondition, before following: ArraySlice<RemoteConfigCondition>, in template: inout RemoteConfigTemplate
    ) {
        if let existing = template.conditions.firstIndex(where: { $0.name == condition.name }) {
            template.conditions[existing] = condition
            return
        }
        let later = Set(following.map(\.name))
        let position = template.conditions.firstIndex { later.contains($0.name) } ?? template.conditions.endIndex
        template.conditions.insert(condition, at: position)
    }
}
