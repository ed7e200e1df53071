extension ConditionExpression {
    /// The structured form of this expression, as `serverRemoteConfig` returns it; throws when
    /// the expression uses elements server templates do not support.
    ///
    /// Shape (protocol notes §5.1): an `orCondition` of `andCondition`s of rules, so
    /// `a && b || c` becomes `{"orCondition": {"conditions": [{"andCondition": {"conditions":
    /// [a, b]}}, {"andCondition": {"conditions": [c]}}]}}`; parenthesised groups nest the same
    /// way. Supported: `true`, `false`, `percent` rules and `app.customSignal['k']` rules other
    /// than `!=` (`== 'x'` and `in [...]` become `STRING_EXACTLY_MATCHES`, which also ignores
    /// surrounding whitespace). An unseeded `percent` gets no `seed`, so the Admin SDKs hash
    /// without one whatever `defaultPercentSeed` the client-template evaluation uses.
    public func serverCondition() throws(ConditionSyntaxError) -> ServerCondition {
        let json = try ServerConditionEncoder.orCondition(root, level: 0)
        return try ServerCondition(json: json)
    }
}

/// Turns a parsed expression into `OneOfCondition` JSON.
private enum ServerConditionEncoder {
    private static func group(_ name: String, _ conditions: [JSONValue]) -> JSONValue {
        .object([name: .object(["conditions": .array(conditions)])])
    }

    /// `level` counts enclosing `orCondition`/`andCondition` objects (two evaluation levels
    /// each in the Admin SDKs).
    static func orCondition(_ node: ConditionNode, level: Int) throws(ConditionSyntaxError) -> JSONValue {
        let branches: [ConditionNode]
        if case .any(let children) = node { branches = children } else { branches = [node] }
        var conditions: [JSONValue] = []
        for branch in branches { conditions.append(try andCondition(branch, level: level + 1)) }
        return group("orCondition", conditions)
    }

    private static func andCondition(_ node: ConditionNode, level: Int) throws(ConditionSyntaxError) -> JSONValue {
        let items: [ConditionNode]
        if case .all(let children) = node { items = children } else { items = [node] }
        var conditions: [JSONValue] = []
        for item in items { conditions.append(try leaf(item, level: level + 1)) }
        return group("andCondition", conditions)
    }

    private static func leaf(_ node: ConditionNode, level: Int) throws(ConditionSyntaxError) -> JSONValue {
        switch node {
        case .constant(let value):
            return .object([value ? "true" : "false": .object([:])])
        case .any, .all:
            return try orCondition(node, level: level)
        case .not(_, let offset):
            throw ConditionSyntaxError(message: "'!' is not supported in server templates", offset: offset)
        case .rule(let rule, let offset):
            // Rules nested under five or more groups are false in the Admin SDKs.
            if level * 2 >= ServerConditionNode.maxEvaluationLevel {
                throw ConditionSyntaxError(message: "parentheses nest too deep for a server template", offset: offset)
            }
            return try encode(rule, offset: offset)
        }
    }

    private static func encode(_ rule: ConditionRule, offset: Int) throws(ConditionSyntaxError) -> JSONValue {
        switch rule {
        case .percent(let seed, let percent):
            var fields: [String: JSONValue] = [:]
            if let seed, !seed.isEmpty { fields["seed"] = .string(seed) }
            fields["percentOperator"] = .string((percent.percentOperator ?? .unknown).rawValue)
            switch percent.percentOperator {
            case .between:
                fields["microPercentRange"] = .object([
                    "microPercentLowerBound": .number(Double(percent.lowerBound)),
                    "microPercentUpperBound": .number(Double(percent.upperBound)),
                ])
            default:
                fields["microPercent"] = .number(Double(percent.microPercent))
            }
            return .object(["percent": .object(fields)])
        case .value(.customSignal(let key), let test):
            let signalOperator: CustomSignalOperator
            let targets: [String]
            switch test {
            case .signal(let matcher):
                signalOperator = matcher.signalOperator
                targets = matcher.targets
            case .equalsAny(let values):
                signalOperator = .stringExactlyMatches
                targets = values
            case .notEqual:
                throw ConditionSyntaxError(message: "'!=' on app.customSignal is not supported in server templates",
                                           offset: offset)
            }
            return .object(["customSignal": .object([
                "customSignalOperator": .string(signalOperator.rawValue),
                "customSignalKey": .string(key),
                "targetCustomSignalValues": .array(targets.map(JSONValue.string)),
            ])])
        default:
            throw ConditionSyntaxError(
                message: "only percent and app.customSignal rules are supported in server templates", offset: offset)
        }
    }
}
