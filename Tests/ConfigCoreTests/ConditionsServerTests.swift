import Foundation
import Testing
@testable import ConfigCore

/// Structured server-template conditions, checked against the Admin SDKs' semantics.
@Suite struct ConditionsServerTests {
    static func json(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    static func condition(_ text: String) throws -> ServerCondition {
        try ServerCondition(json: json(text))
    }

    static func signal(_ op: String, _ targets: [String], key: String = "k") -> String {
        let list = targets.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"customSignal":{"customSignalOperator":"\#(op)","customSignalKey":"\#(key)","targetCustomSignalValues":[\#(list)]}}"#
    }

    private func evaluate(_ text: String, _ context: EvaluationContext = EvaluationContext()) throws -> Bool {
        try Self.condition(text).evaluate(in: context)
    }

    @Test(arguments: [
        (#"{"true":{}}"#, true),
        (#"{"false":{}}"#, false),
        (#"{}"#, false),                                         // unknown/empty: false
        (#"{"orCondition":{"conditions":[]}}"#, false),          // empty OR: false
        (#"{"andCondition":{"conditions":[]}}"#, true),          // empty AND: true
        (#"{"orCondition":{}}"#, false),
        (#"{"orCondition":{"conditions":[{"andCondition":{}}]}}"#, true),
        (#"{"orCondition":{"conditions":[{"false":{}},{"true":{}}]}}"#, true),
        (#"{"andCondition":{"conditions":[{"true":{}},{"false":{}}]}}"#, false),
        (#"{"true":{},"false":{}}"#, true),                      // first field in SDK order wins
        (#"{"false":{},"orCondition":{"conditions":[{"true":{}}]}}"#, true),
        (#"{"true":null,"false":{}}"#, false),                   // null is absent
        (#"{"or_condition":{"conditions":[{"true":{}}]}}"#, true), // snake_case names
    ])
    func structure(_ text: String, _ expected: Bool) throws {
        #expect(try evaluate(text) == expected)
    }

    /// Each `orCondition`/`andCondition` adds two levels; a condition at level 10 is false.
    @Test(arguments: [(1, true), (4, true), (5, false), (8, false)])
    func nestingDepthMatchesTheAdminSDK(_ groups: Int, _ expected: Bool) throws {
        var text = #"{"true":{}}"#
        for index in 0..<groups {
            text = #"{"\#(index.isMultiple(of: 2) ? "andCondition" : "orCondition")":{"conditions":[\#(text)]}}"#
        }
        #expect(try evaluate(text) == expected)
    }

    @Test func percentOperators() throws {
        // Seed "3" with id "three" is at 6 701 947.
        let three = EvaluationContext(appInstanceId: "three")
        func percent(_ body: String) throws -> Bool {
            try evaluate(#"{"percent":{"seed":"3",\#(body)}}"#, three)
        }
        #expect(try percent(#""percentOperator":"LESS_OR_EQUAL","microPercent":6701947"#))
        #expect(try !percent(#""percentOperator":"LESS_OR_EQUAL","microPercent":6701946"#))
        #expect(try percent(#""percentOperator":"GREATER_THAN","microPercent":"6701946""#))
        #expect(try !percent(#""percentOperator":"GREATER_THAN","microPercent":6701947"#))
        #expect(try percent(#""percentOperator":"BETWEEN","microPercentRange":{"microPercentLowerBound":6701946,"microPercentUpperBound":6701947}"#))
        #expect(try !percent(#""percentOperator":"BETWEEN","microPercentRange":{"microPercentLowerBound":6701947,"microPercentUpperBound":100000000}"#))
        #expect(try !percent(#""percentOperator":"UNKNOWN","microPercent":100000000"#))
        #expect(try !percent(#""microPercent":100000000"#))                 // no operator: false
        #expect(try percent(#""percentOperator":"GREATER_THAN""#))          // missing microPercent is 0
        #expect(try !percent(#""percentOperator":"BETWEEN""#))              // missing bounds are 0
        let everyone = #"{"percent":{"percentOperator":"LESS_OR_EQUAL","microPercent":100000000}}"#
        #expect(try evaluate(everyone, three))
        #expect(try !evaluate(everyone))                                    // no randomization id
        #expect(try !evaluate(everyone, EvaluationContext(appInstanceId: "")))
    }

    @Test(arguments: [
        ("STRING_CONTAINS", ["x", "ell"], "hello", true),
        ("STRING_CONTAINS", ["Ell"], "hello", false),                      // case-sensitive
        ("STRING_DOES_NOT_CONTAIN", ["x", "y"], "hello", true),
        ("STRING_DOES_NOT_CONTAIN", ["x", "ell"], "hello", false),
        ("STRING_EXACTLY_MATCHES", [" hello "], "hello  ", true),          // trims both sides
        ("STRING_EXACTLY_MATCHES", ["hell"], "hello", false),
        ("STRING_CONTAINS_REGEX", ["l+o$"], "hello", true),                // partial match
        ("STRING_CONTAINS_REGEX", ["^ell"], "hello", false),
        ("NUMERIC_LESS_THAN", ["5"], "4.99", true),
        ("NUMERIC_LESS_EQUAL", ["5"], " 5 ", true),
        ("NUMERIC_EQUAL", ["5"], "5.0", true),
        ("NUMERIC_EQUAL", ["-1e3"], "-1000", true),
        ("NUMERIC_NOT_EQUAL", ["5"], "6", true),
        ("NUMERIC_GREATER_THAN", ["5"], "5", false),
        ("NUMERIC_GREATER_EQUAL", ["5"], "5", true),
        ("NUMERIC_NOT_EQUAL", ["5"], "five", false),                       // not a number: false
        ("NUMERIC_EQUAL", ["0"], "", false),                               // unlike JS Number("")
        ("NUMERIC_EQUAL", ["16"], "0x10", false),
        ("SEMANTIC_VERSION_LESS_THAN", ["1.10"], "1.9", true),             // numeric segments
        ("SEMANTIC_VERSION_LESS_EQUAL", ["1.2.0"], "1.2", true),
        ("SEMANTIC_VERSION_EQUAL", ["1.2"], "1.2.0.0.0", true),            // zero padding
        ("SEMANTIC_VERSION_EQUAL", ["1.2"], "1.2.0.0.0.0", false),         // > 5 segments: false
        ("SEMANTIC_VERSION_NOT_EQUAL", ["1.2"], "1.3", true),
        ("SEMANTIC_VERSION_NOT_EQUAL", ["1.2"], "1.x", false),             // not a version: false
        ("SEMANTIC_VERSION_GREATER_THAN", ["2.0.0"], "10.0", true),
        ("SEMANTIC_VERSION_GREATER_EQUAL", ["2.0.0"], "2", true),
        ("SEMANTIC_VERSION_GREATER_EQUAL", ["2"], "-3", false),
        ("UNKNOWN", ["x"], "x", false),
    ] as [(String, [String], String, Bool)])
    func customSignalOperators(_ op: String, _ targets: [String], _ actual: String, _ expected: Bool) throws {
        let context = EvaluationContext(customSignals: ["k": actual])
        #expect(try evaluate(Self.signal(op, targets), context) == expected)
    }

    @Test func customSignalEdgeCases() throws {
        // A signal the client did not send is false, even for the negative operators.
        #expect(try !evaluate(Self.signal("STRING_DOES_NOT_CONTAIN", ["x"])))
        #expect(try !evaluate(Self.signal("NUMERIC_NOT_EQUAL", ["1"])))
        let context = EvaluationContext(customSignals: ["k": "v", "": "v"])
        #expect(try !evaluate(Self.signal("STRING_CONTAINS", []), context))            // no targets
        #expect(try !evaluate(Self.signal("STRING_CONTAINS", ["v"], key: ""), context)) // no key
        #expect(try !evaluate(#"{"customSignal":{"customSignalKey":"k","targetCustomSignalValues":["v"]}}"#, context))
        #expect(try evaluate(#"{"custom_signal":{"custom_signal_operator":"STRING_CONTAINS","custom_signal_key":"k","target_custom_signal_values":["v"]}}"#, context))
    }

    @Test(arguments: [
        ("[]", "condition: expected an object"),
        (#"{"nope":{}}"#, "condition.nope: unknown field (expected one of orCondition, andCondition, true, false, percent, customSignal)"),
        (#"{"true":{"x":1}}"#, "condition.true.x: unknown field (expected an empty object)"),
        (#"{"true":true}"#, "condition.true: expected an empty object"),
        (#"{"orCondition":{"conditions":{}}}"#, "condition.orCondition.conditions: expected an array"),
        (#"{"orCondition":{"conditions":[{"andCondition":{"conditions":[1]}}]}}"#, "condition.orCondition.conditions[0].andCondition.conditions[0]: expected an object"),
        (#"{"orCondition":{"conditions":[],"or_condition":{}}}"#, "condition.orCondition.or_condition: unknown field (expected one of conditions)"),
        (#"{"orCondition":{"conditions":[]},"or_condition":{"conditions":[]}}"#, "condition.or_condition: field given twice (as orCondition and or_condition)"),
        (#"{"percent":{"percentOperator":"LESS"}}"#, "condition.percent.percentOperator: unknown operator 'LESS' (expected LESS_OR_EQUAL, GREATER_THAN, BETWEEN or UNKNOWN)"),
        (#"{"percent":{"percentOperator":1}}"#, "condition.percent.percentOperator: expected a string"),
        (#"{"percent":{"microPercent":-1}}"#, "condition.percent.microPercent: expected an integer from 0 to 100000000"),
        (#"{"percent":{"microPercent":1.5}}"#, "condition.percent.microPercent: expected an integer from 0 to 100000000"),
        (#"{"percent":{"microPercent":100000001}}"#, "condition.percent.microPercent: expected an integer from 0 to 100000000"),
        (#"{"percent":{"microPercentRange":{"microPercentUpperBound":"x"}}}"#, "condition.percent.microPercentRange.microPercentUpperBound: expected an integer from 0 to 100000000"),
        (#"{"percent":{"seed":"a b"}}"#, "condition.percent.seed: invalid seed 'a b': up to 32 of A-Z, a-z, 0-9, '-', '_', '.'"),
        (#"{"customSignal":{"customSignalOperator":"STRING_STARTS_WITH"}}"#, "condition.customSignal.customSignalOperator: unknown operator 'STRING_STARTS_WITH'"),
        (#"{"customSignal":{"customSignalKey":5}}"#, "condition.customSignal.customSignalKey: expected a string"),
        (#"{"customSignal":{"targetCustomSignalValues":"x"}}"#, "condition.customSignal.targetCustomSignalValues: expected an array of strings"),
        (#"{"customSignal":{"targetCustomSignalValues":["x",2]}}"#, "condition.customSignal.targetCustomSignalValues[1]: expected a string"),
        (signal("NUMERIC_EQUAL", ["1", "2"]), "condition.customSignal.targetCustomSignalValues[1]: NUMERIC_EQUAL takes exactly one target value"),
        (signal("NUMERIC_EQUAL", ["one"]), "condition.customSignal.targetCustomSignalValues[0]: 'one' is not a number"),
        (signal("SEMANTIC_VERSION_EQUAL", ["1.2.3.4.5.6"]), "condition.customSignal.targetCustomSignalValues[0]: '1.2.3.4.5.6' is not a version (1 to 5 dot-separated numbers)"),
        (signal("STRING_CONTAINS_REGEX", ["ok", "(x"]), "condition.customSignal.targetCustomSignalValues[1]: invalid regular expression '(x': missing ')' at offset 0"),
        (signal("STRING_CONTAINS", Array(repeating: "x", count: 101)), "condition.customSignal.targetCustomSignalValues[100]: more than 100 target values"),
    ])
    func rejectsInvalidShapesWithAPath(_ text: String, _ message: String) {
        #expect(throws: ConditionSyntaxError(message: message, offset: 0)) {
            try Self.condition(text)
        }
    }

    @Test func rejectsHostileNesting() throws {
        var text = #"{"true":{}}"#
        for _ in 0..<70 { text = #"{"orCondition":{"conditions":[\#(text)]}}"# }
        #expect(throws: ConditionSyntaxError.self) { try Self.condition(text) }
    }

    @Test func errorPathsCanStartAnywhere() {
        #expect(throws: ConditionSyntaxError(message: "conditions[3].condition.x: unknown field (expected one of orCondition, andCondition, true, false, percent, customSignal)", offset: 0)) {
            try ServerCondition(json: Self.json(#"{"x":1}"#), path: "conditions[3].condition")
        }
    }

    @Test func equalityIsByJSON() throws {
        #expect(try Self.condition(#"{"true":{}}"#) == Self.condition(#"{"true":{}}"#))
        #expect(try Self.condition(#"{"true":{}}"#) != Self.condition(#"{"false":{}}"#))
    }
}
