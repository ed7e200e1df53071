/// A structured server-template condition (`OneOfCondition` in Firebase's API, protocol notes
/// §5.1), evaluated exactly as the Firebase Admin SDKs evaluate it (§5.2 to §5.4).
///
/// Reading checks the shape: objects where objects belong, known field names (lowerCamelCase
/// or snake_case), known operator names, integer micro-percents 0...100 000 000, seeds of up to
/// 32 `[-_.0-9a-zA-Z]`, at most 100 targets (one for numeric and version operators), targets
/// that parse as numbers, versions or regular expressions. What the Admin SDKs tolerate is
/// tolerated and evaluates as they do: missing operators, keys or targets (false), several
/// fields set (the first of `orCondition`, `andCondition`, `true`, `false`, `percent`,
/// `customSignal` wins), an empty object (false), an empty `orCondition` (false) or
/// `andCondition` (true), conditions nested past the SDKs' depth limit (false).
public struct ServerCondition: Sendable, Equatable {
    /// The condition as Firebase's JSON (`{"orCondition": {...}}` and so on).
    public let json: JSONValue
    let root: ServerConditionNode

    /// Reads a structured condition; throws when its shape is not one Firebase defines.
    /// Error messages start with the JSON path, e.g. `condition.percent.microPercent: ...`.
    public init(json: JSONValue) throws(ConditionSyntaxError) {
        try self.init(json: json, path: "condition")
    }

    /// Reads a structured condition found at `path` (used as the start of error messages,
    /// e.g. `conditions[3].condition`).
    public init(json: JSONValue, path: String) throws(ConditionSyntaxError) {
        self.json = json
        self.root = try ServerConditionNode(json: json, path: path)
    }

    /// Evaluates the condition for one client: `randomizationId` (or, when none was sent,
    /// `appInstanceId`) is the randomization id of percent conditions, and `customSignals`
    /// holds the signals. Without either id every percent condition is false, as in the Admin SDKs.
    public func evaluate(in context: EvaluationContext) -> Bool {
        root.evaluate(in: context)
    }

    public static func == (lhs: ServerCondition, rhs: ServerCondition) -> Bool {
        lhs.json == rhs.json
    }
}
