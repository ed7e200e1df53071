/// A checked, compiled `OneOfCondition` (protocol notes §5.1, §5.2).
indirect enum ServerConditionNode: Sendable {
    case or([ServerConditionNode])
    case and([ServerConditionNode])
    case constant(Bool)
    case percent(seed: String, PercentRule)
    /// `key == nil`: the condition names no key and is false.
    case customSignal(key: String?, SignalMatcher)

    /// The Admin SDKs stop at this nesting level: each `orCondition`/`andCondition` adds two
    /// (one for the operator, one for its children), and a condition at level 10 or deeper is
    /// false whatever it says (Node, Python and Go `MAX_CONDITION_RECURSION_DEPTH`).
    static let maxEvaluationLevel = 10
    /// Deepest JSON nesting accepted at all, so hostile input cannot exhaust the stack.
    static let maxJSONDepth = 64

    /// Fields in the order the Admin SDKs look at them: only the first one present counts.
    static let fields = ["orCondition", "andCondition", "true", "false", "percent", "customSignal"]

    func evaluate(in context: EvaluationContext) -> Bool {
        switch self {
        case .or(let children): children.contains { $0.evaluate(in: context) }
        case .and(let children): children.allSatisfy { $0.evaluate(in: context) }
        case .constant(let value): value
        case .percent(let seed, let rule): rule.matches(seed: seed, randomizationId: context.serverRandomizationId)
        case .customSignal(let key, let matcher):
            key.flatMap { context.customSignals[$0] }.map(matcher.matches) ?? false
        }
    }

    /// Reads `json`, a condition at evaluation `level`, found at `path`. Conditions too deep
    /// for the Admin SDKs are checked but compiled to `false`, as those SDKs evaluate them.
    init(json: JSONValue, path: String, level: Int = 0, depth: Int = 0) throws(ConditionSyntaxError) {
        guard depth <= ServerConditionNode.maxJSONDepth else {
            throw JSONFields.error(path, "conditions nest deeper than \(ServerConditionNode.maxJSONDepth) levels")
        }
        let fields = try JSONFields(json, path: path, allowed: ServerConditionNode.fields)
        var node: ServerConditionNode?
        for name in ServerConditionNode.fields {
            guard let value = fields[name] else { continue }
            let fieldPath = "\(path).\(name)"
            let parsed: ServerConditionNode
            switch name {
            case "orCondition", "andCondition":
                let group = try JSONFields(value, path: fieldPath, allowed: ["conditions"])
                var children: [ServerConditionNode] = []
                if let list = group["conditions"] {
                    guard case .array(let items) = list else {
                        throw JSONFields.error("\(fieldPath).conditions", "expected an array")
                    }
                    for (index, item) in items.enumerated() {
                        children.append(try ServerConditionNode(
                            json: item, path: "\(fieldPath).conditions[\(index)]", level: level + 2, depth: depth + 1))
                    }
                }
                parsed = name == "orCondition" ? .or(children) : .and(children)
            case "true", "false":
                _ = try JSONFields(value, path: fieldPath, allowed: [])
                parsed = .constant(name == "true")
            case "percent":
                parsed = try ServerConditionNode.percent(value, path: fieldPath)
            default:
                parsed = try ServerConditionNode.customSignal(value, path: fieldPath)
            }
            // Later fields are still checked, but the first one present decides.
            node = node ?? parsed
        }
        // No field at all: the Admin SDKs evaluate an unknown condition to false.
        let result = node ?? .constant(false)
        self = level >= ServerConditionNode.maxEvaluationLevel ? .constant(false) : result
    }

    private static func percent(_ json: JSONValue, path: String) throws(ConditionSyntaxError) -> ServerConditionNode {
        let fields = try JSONFields(json, path: path,
                                    allowed: ["percentOperator", "microPercent", "microPercentRange", "seed"])
        let percentOperator: PercentRule.Operator? = try fields.string("percentOperator").map { name throws(ConditionSyntaxError) in
            guard let value = PercentRule.Operator(rawValue: name) else {
                throw JSONFields.error("\(path).percentOperator",
                                       "unknown operator '\(name)' (expected LESS_OR_EQUAL, GREATER_THAN, BETWEEN or UNKNOWN)")
            }
            return value
        }
        let seed = try fields.string("seed") ?? ""
        guard PercentRule.isValidSeed(seed) else {
            throw JSONFields.error("\(path).seed", "invalid seed '\(seed)': up to 32 of A-Z, a-z, 0-9, '-', '_', '.'")
        }
        var lower: UInt64 = 0
        var upper: UInt64 = 0
        if let range = fields["microPercentRange"] {
            let rangeFields = try JSONFields(range, path: "\(path).microPercentRange",
                                             allowed: ["microPercentLowerBound", "microPercentUpperBound"])
            lower = try rangeFields.microPercent("microPercentLowerBound") ?? 0
            upper = try rangeFields.microPercent("microPercentUpperBound") ?? 0
        }
        let rule = PercentRule(percentOperator, microPercent: try fields.microPercent("microPercent") ?? 0,
                               lowerBound: lower, upperBound: upper)
        return .percent(seed: seed, rule)
    }

    private static func customSignal(_ json: JSONValue, path: String) throws(ConditionSyntaxError) -> ServerConditionNode {
        let fields = try JSONFields(json, path: path,
                                    allowed: ["customSignalOperator", "customSignalKey", "targetCustomSignalValues"])
        let signalOperator = try fields.string("customSignalOperator").map { name throws(ConditionSyntaxError) in
            guard let value = CustomSignalOperator(rawValue: name) else {
                throw JSONFields.error("\(path).customSignalOperator", "unknown operator '\(name)'")
            }
            return value
        } ?? .unknown
        let key = try fields.string("customSignalKey")
        var targets: [String] = []
        if let list = fields["targetCustomSignalValues"] {
            let listPath = "\(path).targetCustomSignalValues"
            guard case .array(let items) = list else { throw JSONFields.error(listPath, "expected an array of strings") }
            for (index, item) in items.enumerated() {
                guard case .string(let target) = item else {
                    throw JSONFields.error("\(listPath)[\(index)]", "expected a string")
                }
                targets.append(target)
            }
        }
        do {
            let matcher = try SignalMatcher(signalOperator, targets: targets)
            return .customSignal(key: key.flatMap { $0.isEmpty ? nil : $0 }, matcher)
        } catch {
            throw JSONFields.error("\(path).targetCustomSignalValues[\(error.index)]", error.message)
        }
    }
}
