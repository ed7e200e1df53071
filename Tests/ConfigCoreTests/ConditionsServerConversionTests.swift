import Testing
@testable import ConfigCore

/// `ConditionExpression.serverCondition()`: expressions compiled to `OneOfCondition` JSON.
@Suite struct ConditionsServerConversionTests {
    private func converted(_ source: String) throws -> JSONValue {
        try ConditionExpression.parse(source).serverCondition().json
    }

    private func wrapped(_ branches: String...) throws -> JSONValue {
        let conditions = branches.map { #"{"andCondition":{"conditions":[\#($0)]}}"# }.joined(separator: ",")
        return try ConditionsServerTests.json(#"{"orCondition":{"conditions":[\#(conditions)]}}"#)
    }

    @Test func percentRules() throws {
        #expect(try converted("percent <= 10")
                == wrapped(#"{"percent":{"percentOperator":"LESS_OR_EQUAL","microPercent":10000000}}"#))
        #expect(try converted("percent > 0.5")
                == wrapped(#"{"percent":{"percentOperator":"GREATER_THAN","microPercent":500000}}"#))
        #expect(try converted("percent('s') between 20 and 40") == wrapped(
            #"{"percent":{"percentOperator":"BETWEEN","seed":"s","microPercentRange":{"microPercentLowerBound":20000000,"microPercentUpperBound":40000000}}}"#))
    }

    @Test func customSignalRules() throws {
        let source = "app.customSignal['plan'].exactlyMatches(['pro', 'max']) && app.customSignal['level'] >= 5"
            + " && version(app.customSignal['v']) < '2.0' && app.customSignal['os'].>=(['14'])"
            + " && app.customSignal['c'] in ['a'] && app.customSignal['r'].matches(['^x'])"
        #expect(try converted(source) == wrapped([
            Self.signal("STRING_EXACTLY_MATCHES", "plan", ["pro", "max"]),
            Self.signal("NUMERIC_GREATER_EQUAL", "level", ["5"]),
            Self.signal("SEMANTIC_VERSION_LESS_THAN", "v", ["2.0"]),
            Self.signal("SEMANTIC_VERSION_GREATER_EQUAL", "os", ["14"]),
            Self.signal("STRING_EXACTLY_MATCHES", "c", ["a"]),
            Self.signal("STRING_CONTAINS_REGEX", "r", ["^x"])
        ].joined(separator: ",")))
    }

    private static func signal(_ op: String, _ key: String, _ targets: [String]) -> String {
        ConditionsServerTests.signal(op, targets, key: key)
    }

    @Test func booleanStructure() throws {
        #expect(try converted("true || false && true") == wrapped(#"{"true":{}}"#, #"{"false":{}},{"true":{}}"#))
        let nested = try ConditionsServerTests.json(
            #"{"orCondition":{"conditions":[{"andCondition":{"conditions":[{"true":{}},{"false":{}}]}}]}}"#)
        #expect(try converted("(true || false) && true") == wrapped(
            #"{"orCondition":{"conditions":[{"andCondition":{"conditions":[{"true":{}}]}},{"andCondition":{"conditions":[{"false":{}}]}}]}},{"true":{}}"#))
        #expect(try converted("(true && false)") == nested)
    }

    @Test(arguments: [
        ("device.os == 'ios'", "only percent and app.customSignal rules are supported in server templates", 0),
        ("true && app.version.>(['1'])", "only percent and app.customSignal rules are supported in server templates", 8),
        ("true && !false", "'!' is not supported in server templates", 8),
        ("app.customSignal['k'] != 'x'", "'!=' on app.customSignal is not supported in server templates", 0),
        ("true && (true || (true && (true || percent <= 1)))",
         "parentheses nest too deep for a server template", 35),
    ] as [(String, String, Int)])
    func unsupportedExpressions(_ source: String, _ message: String, _ offset: Int) throws {
        let expression = try ConditionExpression.parse(source)
        #expect(throws: ConditionSyntaxError(message: message, offset: offset)) {
            try expression.serverCondition()
        }
    }

    /// The converted condition decides like the expression for every client.
    @Test func convertedConditionsEvaluateTheSame() throws {
        let sources = [
            "percent <= 50", "percent('s') between 10 and 60 || app.customSignal['n'] > 3",
            "app.customSignal['v'].<=(['1.5']) && (percent > 20 || app.customSignal['t'].contains(['b']))",
        ]
        let contexts = (0..<40).map { index in
            EvaluationContext(appInstanceId: "id-\(index)",
                              customSignals: ["n": "\(index % 7)", "v": "1.\(index % 9)", "t": index % 3 == 0 ? "abc" : "x"])
        }
        for source in sources {
            let expression = try ConditionExpression.parse(source)
            let server = try expression.serverCondition()
            for context in contexts {
                #expect(expression.evaluate(in: context) == server.evaluate(in: context), "\(source)")
            }
        }
    }
}
