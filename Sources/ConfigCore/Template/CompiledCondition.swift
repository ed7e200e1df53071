/// A condition ready to evaluate: its expression or structured rule parsed once.
enum CompiledCondition: Sendable {
    /// A client-template expression (its root: one reference to copy when evaluating).
    case expression(ConditionNode)
    /// A server-template rule, with the `OneOfCondition` JSON that `serverRemoteConfig` returns.
    case structured(ServerConditionNode, json: JSONValue)

    func evaluate(in context: EvaluationContext) -> Bool {
        switch self {
        case .expression(let root): root.evaluate(in: context)
        case .structured(let root, _): root.evaluate(in: context)
        }
    }

    func collectReads(into reads: inout ConditionReads) {
        switch self {
        case .expression(let root): root.collectReads(into: &reads)
        case .structured(let root, _): root.collectReads(into: &reads)
        }
    }

    /// Parses the condition at `conditions[index]` for a template of `namespace`.
    ///
    /// Client templates need an `expression`. Server templates take either a structured
    /// `condition` or an expression that compiles to one (spec §5.1). The issue names the member
    /// at fault and, for syntax errors, the offset into the expression.
    static func compile(
        _ condition: RemoteConfigCondition, at index: Int, namespace: TemplateNamespace
    ) throws(TemplateValidationError) -> CompiledCondition {
        func failure(_ path: String, _ message: String) -> TemplateValidationError {
            TemplateValidationError(issues: [.init(path: path, message: message)])
        }
        let path = "conditions[\(index)]"
        switch (condition.expression, condition.condition) {
        case (.some, .some):
            throw failure(path, "condition '\(condition.name)' has both an expression and a structured condition; give one")
        case (nil, nil):
            let wanted = namespace.kind == .client ? "an expression" : "an expression or a structured condition"
            throw failure(path, "condition '\(condition.name)' needs \(wanted)")
        case (nil, .some(let json)):
            guard namespace.kind == .server else {
                throw failure(path + ".condition", "structured conditions are only for firebase-server templates; give an expression")
            }
            do {
                return .structured(try ServerCondition(json: json).root, json: json)
            } catch {
                throw failure(path + ".condition", "invalid condition '\(condition.name)': \(error.message)")
            }
        case (.some(let source), nil):
            let parsed: ConditionExpression
            do {
                parsed = try ConditionExpression.parse(source)
            } catch {
                throw failure(path + ".expression", "condition '\(condition.name)' does not parse: \(error.message) at offset \(error.offset)")
            }
            guard namespace.kind == .server else { return .expression(parsed.root) }
            do {
                let structured = try parsed.serverCondition()
                return .structured(structured.root, json: structured.json)
            } catch {
                throw failure(path + ".expression", "condition '\(condition.name)' cannot be used in a server template: \(error.message) at offset \(error.offset)")
            }
        }
    }
}
