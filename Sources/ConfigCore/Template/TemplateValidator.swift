/// Checks a template against Firebase's publish-time rules (spec §2.9) before it is stored.
///
/// Collects every problem rather than stopping at the first, so one `400` tells the publisher
/// all that is wrong (up to `TemplateLimits.maxReportedIssues`). Issue order is stable: version,
/// conditions in list order, groups by name, parameters by key, then template-wide totals.
public struct TemplateValidator: Sendable {
    public typealias Issue = TemplateValidationError.Issue

    public var limits: TemplateLimits

    public init(limits: TemplateLimits = .firebase) {
        self.limits = limits
    }

    /// Throws the template's problems, if any.
    ///
    /// - Parameter namespace: `.server` additionally requires conditions that compile to
    ///   structured rules and values that are plain `value`s or `useInAppDefault`.
    public func validate(_ template: RemoteConfigTemplate, namespace: TemplateNamespace = .client) throws(TemplateValidationError) {
        let found = issues(in: template, namespace: namespace)
        guard !found.isEmpty else { return }
        let listed = Array(found.prefix(max(1, limits.maxReportedIssues)))
        throw TemplateValidationError(issues: listed, omittedIssueCount: found.count - listed.count)
    }

    /// Every problem of the template, in the order described above.
    public func issues(in template: RemoteConfigTemplate, namespace: TemplateNamespace = .client) -> [Issue] {
        var issues: [Issue] = []
        if let description = template.version?.description, description.count > limits.maxVersionDescriptionLength {
            issues.append(Issue(path: "version.description", message: tooLong("version description", limits.maxVersionDescriptionLength)))
        }
        let conditionNames = checkConditions(template.conditions, namespace: namespace, into: &issues)
        for name in template.parameterGroups.keys.sorted() {
            checkGroup(name, template.parameterGroups[name]!, into: &issues)
        }
        var totalValueLength = 0
        var firstPathOfKey: [String: String] = [:]
        let entries = template.allParameters
        for entry in entries {
            if let first = firstPathOfKey[entry.key] {
                issues.append(Issue(path: entry.path, message: "parameter key '\(entry.key)' is already defined at \(first)"))
            } else {
                firstPathOfKey[entry.key] = entry.path
            }
            checkParameter(entry, conditionNames: conditionNames, namespace: namespace, totalValueLength: &totalValueLength, into: &issues)
        }
        if entries.count > limits.maxParameters {
            issues.append(Issue(path: "parameters", message: "the template has \(entries.count) parameters (groups included); the limit is \(limits.maxParameters)"))
        }
        if totalValueLength > limits.maxTotalValueLength {
            issues.append(Issue(path: "parameters", message: "parameter values total \(totalValueLength) characters; the limit is \(limits.maxTotalValueLength)"))
        }
        return issues
    }

    /// Checks names, colours and rules; returns every condition name (also of conditions with
    /// problems, so that references to them are not reported a second time).
    private func checkConditions(_ conditions: [RemoteConfigCondition], namespace: TemplateNamespace, into issues: inout [Issue]) -> Set<String> {
        if conditions.count > limits.maxConditions {
            issues.append(Issue(path: "conditions", message: "the template has \(conditions.count) conditions; the limit is \(limits.maxConditions)"))
        }
        var firstIndexOfName: [String: Int] = [:]
        for (index, condition) in conditions.enumerated() {
            let path = "conditions[\(index)]"
            if let first = firstIndexOfName[condition.name] {
                issues.append(Issue(path: path + ".name", message: "duplicate condition name '\(condition.name)' (first at conditions[\(first)])"))
            } else {
                firstIndexOfName[condition.name] = index
            }
            if let problem = conditionNameProblem(condition.name) {
                issues.append(Issue(path: path + ".name", message: problem))
            }
            if let color = condition.tagColor, !RemoteConfigCondition.tagColors.contains(color) {
                issues.append(Issue(path: path + ".tagColor", message: "unknown tag color '\(color)'"))
            }
            do {
                _ = try CompiledCondition.compile(condition, at: index, namespace: namespace)
            } catch {
                issues += error.issues
            }
        }
        return Set(firstIndexOfName.keys)
    }

    private func conditionNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "a condition name must not be empty" }
        if name.count > limits.maxConditionNameLength {
            return tooLong("condition name", limits.maxConditionNameLength)
        }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (isAlphanumeric(scalar) || "-_ '!%.".unicodeScalars.contains(scalar))
        }
        if limits.restrictsConditionNameCharacters, !allowed {
            return "condition name '\(name)' may contain only letters, digits, spaces and - _ ' ! % ."
        }
        return nil
    }

    private func checkGroup(_ name: String, _ group: ParameterGroup, into issues: inout [Issue]) {
        let path = "parameterGroups.\(name)"
        if name.isEmpty {
            issues.append(Issue(path: path, message: "a group name must not be empty"))
        } else if name.count > limits.maxGroupNameLength {
            issues.append(Issue(path: path, message: tooLong("group name", limits.maxGroupNameLength)))
        }
        if let description = group.description, description.count > limits.maxGroupDescriptionLength {
            issues.append(Issue(path: path + ".description", message: tooLong("group description", limits.maxGroupDescriptionLength)))
        }
    }

    private func checkParameter(
        _ entry: RemoteConfigTemplate.ParameterEntry, conditionNames: Set<String>, namespace: TemplateNamespace,
        totalValueLength: inout Int, into issues: inout [Issue]
    ) {
        let path = entry.path
        if let problem = parameterKeyProblem(entry.key) {
            issues.append(Issue(path: path, message: problem))
        }
        let parameter = entry.parameter
        if let description = parameter.description, description.count > limits.maxParameterDescriptionLength {
            issues.append(Issue(path: path + ".description", message: tooLong("parameter description", limits.maxParameterDescriptionLength)))
        }
        var valueType: ParameterValueType? = parameter.valueType
        if !ParameterValueType.known.contains(parameter.valueType) {
            issues.append(Issue(path: path + ".valueType", message: "unknown value type '\(parameter.valueType)'; use STRING, BOOLEAN, NUMBER or JSON"))
            valueType = nil
        }
        if let value = parameter.defaultValue {
            checkValue(value, type: valueType, path: path + ".defaultValue", namespace: namespace, into: &issues)
            totalValueLength += value.servedStrings.reduce(0) { $0 + $1.utf16.count }
        }
        for name in parameter.conditionalValues.keys.sorted() {
            let value = parameter.conditionalValues[name]!
            let valuePath = path + ".conditionalValues." + name
            if !conditionNames.contains(name) {
                issues.append(Issue(path: valuePath, message: "unknown condition '\(name)'; conditional values must name a condition of the template"))
            }
            checkValue(value, type: valueType, path: valuePath, namespace: namespace, into: &issues)
            totalValueLength += value.servedStrings.reduce(0) { $0 + $1.utf16.count }
        }
    }

    private func parameterKeyProblem(_ key: String) -> String? {
        if key.isEmpty { return "a parameter key must not be empty" }
        if key.count > limits.maxParameterKeyLength {
            return tooLong("parameter key", limits.maxParameterKeyLength)
        }
        guard limits.restrictsParameterKeyCharacters else { return nil }
        let scalars = key.unicodeScalars
        let valid = scalars.allSatisfy { $0.isASCII && (isAlphanumeric($0) || $0 == "_") }
            && !("0"..."9").contains(scalars.first!)
        return valid ? nil : "parameter key '\(key)' must start with a letter or '_' and contain only letters, digits and '_'"
    }

    /// Checks one value: its shape, and every string it serves against `type` (`nil` when the
    /// type itself is invalid).
    private func checkValue(_ value: ParameterValue, type: ParameterValueType?, path: String, namespace: TemplateNamespace, into issues: inout [Issue]) {
        func checkServed(_ string: String, at path: String) {
            if let problem = type?.problem(with: string, caseSensitiveBooleans: limits.booleanValuesAreCaseSensitive) {
                issues.append(Issue(path: path, message: problem))
            }
        }
        func require(_ condition: Bool, _ path: String, _ message: String) {
            if !condition { issues.append(Issue(path: path, message: message)) }
        }
        switch value {
        case .value(let string):
            checkServed(string, at: path + ".value")
            return
        case .useInAppDefault:
            return
        case .personalization(let personalization):
            require(!personalization.personalizationId.isEmpty, path + ".personalizationValue.personalizationId", "must not be empty")
        case .rollout(let rollout):
            let rolloutPath = path + ".rolloutValue"
            require(!rollout.rolloutId.isEmpty, rolloutPath + ".rolloutId", "must not be empty")
            require((1...100).contains(rollout.percent), rolloutPath + ".percent", "must be between 1 and 100")
            checkServed(rollout.value, at: rolloutPath + ".value")
        case .experiment(let experiment):
            let experimentPath = path + ".experimentValue"
            require(!experiment.experimentId.isEmpty, experimentPath + ".experimentId", "must not be empty")
            if let exposure = experiment.exposurePercent {
                require((0...100).contains(exposure), experimentPath + ".exposurePercent", "must be between 0 and 100")
            }
            for (index, variant) in experiment.variantValue.enumerated() {
                let variantPath = experimentPath + ".variantValue[\(index)]"
                require(!variant.variantId.isEmpty, variantPath + ".variantId", "must not be empty")
                require((variant.value != nil) != variant.noChange, variantPath, "a variant needs exactly one of value or noChange")
                if let string = variant.value { checkServed(string, at: variantPath + ".value") }
            }
        }
        if namespace.kind == .server {
            issues.append(Issue(path: path, message: "\(value.kind) is not supported in server templates; use value or useInAppDefault"))
        }
    }

    private func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    private func tooLong(_ what: String, _ limit: Int) -> String {
        "\(what) exceeds \(limit) characters"
    }
}
