/// A structured server-template condition (`OneOfCondition` in Firebase's API).
///
/// PLACEHOLDER: the real model and evaluator replace this file.
public struct ServerCondition: Sendable, Equatable {
    /// The condition as Firebase's JSON (`{"orCondition": {...}}` and so on).
    public let json: JSONValue

    /// Reads a structured condition; throws when its shape is not one Firebase defines.
    public init(json: JSONValue) throws(ConditionSyntaxError) {
        self.json = json
    }

    /// Evaluates the condition for one client (`appInstanceId` is the randomization id).
    public func evaluate(in context: EvaluationContext) -> Bool {
        false
    }
}

extension ConditionExpression {
    /// The structured form of this expression, as `serverRemoteConfig` returns it; throws when
    /// the expression uses elements server templates do not support.
    public func serverCondition() throws(ConditionSyntaxError) -> ServerCondition {
        throw ConditionSyntaxError(message: "not supported in server templates", offset: 0)
    }
}
