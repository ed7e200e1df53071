/// A parsed client-template condition expression (Firebase's condition language).
///
/// PLACEHOLDER: the real parser and evaluator replace this file.
public struct ConditionExpression: Sendable {
    /// The text the expression was parsed from.
    public let source: String

    /// Parses `source`; throws with the offset of the first error.
    public static func parse(_ source: String) throws(ConditionSyntaxError) -> ConditionExpression {
        ConditionExpression(source: source)
    }

    /// Evaluates the expression for one client.
    public func evaluate(in context: EvaluationContext) -> Bool {
        false
    }
}

/// A condition expression that does not parse, or names an element that does not exist.
public struct ConditionSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `expected ']' after the list`.
    public let message: String
    /// Offset in characters (0-based) into the expression where the error was found.
    public let offset: Int

    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(message) at offset \(offset)" }
}
