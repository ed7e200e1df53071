/// A parsed client-template condition expression (Firebase's condition language, protocol
/// notes §6), e.g. `device.os == 'ios' && app.version.>=(['2.1.0']) && percent <= 10`.
///
/// Parsing checks everything once (elements, operators, regular expressions, versions, dates,
/// time zones, percentages) and compiles it; `evaluate(in:)` then only compares. Two
/// expressions are equal when their sources are.
public struct ConditionExpression: Sendable, Hashable {
    /// The text the expression was parsed from.
    public let source: String
    let root: ConditionNode

    /// Longest accepted expression, in characters.
    public static var maxLength: Int { ConditionParser.maxLength }
    /// Deepest accepted nesting of parentheses and `!`.
    public static var maxDepth: Int { ConditionParser.maxDepth }

    /// Parses `source`; throws with the offset of the first error.
    public static func parse(_ source: String) throws(ConditionSyntaxError) -> ConditionExpression {
        ConditionExpression(source: source, root: try ConditionParser.parse(source))
    }

    /// Evaluates the expression for one client. Rules whose input the client did not send are
    /// false; unseeded `percent` rules use `context.defaultPercentSeed` and every percent rule
    /// uses `context.appInstanceId` (or, when none was sent, `context.randomizationId`) as the
    /// randomization id.
    public func evaluate(in context: EvaluationContext) -> Bool {
        root.evaluate(in: context)
    }

    public static func == (lhs: ConditionExpression, rhs: ConditionExpression) -> Bool {
        lhs.source == rhs.source
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
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
