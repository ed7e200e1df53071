import Testing
@testable import ConfigCore

@Suite struct ConditionsParserTests {
    /// Expressions Firebase documents or third-party tools emit; all must parse.
    @Test(arguments: [
        "true",
        "false && true",
        "device.os == 'android' && device.country in ['us', 'uk']",
        "device.os != 'ios'",
        "percent <= 10",
        "percent > 50",
        "percent between 20 and 40",
        "percent('my_seed') <= 10",
        "percent('seeeeeed') between 0 and 20 && app.id == 'my-app-id'",
        "percent <= 0.000001",
        "app.id == '1:123456789012:android:0a1b2c3d4e5f6789'",
        "app.version.>=(['2.1.0'])",
        "app.build.>=(['1.0.0']) && app.version.contains(['1.0.', '2.1.0'])",
        "app.version.exactlyMatches(['2.1.0','2.1.1'])",
        "app.version.notContains(['beta'])",
        "app.version.matches(['^2\\..*'])",
        "app.version in ['1.0', '1.1']",
        "app.userProperty['tier'].exactlyMatches(['gold'])",
        "app.userProperty['hello'].contains(['abc', 'def']) && app.userProperty['bye'] >= 2",
        "app.userProperty['amount'] <= 3.99 && app.userProperty['delta'] > -1",
        "app.userProperty['tier'] == 'paid'",
        "app.customSignal['plan'].exactlyMatches(['pro'])",
        "app.customSignal['mykey'].notContains(['123']) && percent > 50",
        "app.customSignal['level'] >= 5",
        "app.customSignal['v'].>=(['1.2.0'])",
        "version(app.customSignal['v']) >= '1.2.0'",
        "app.audiences.inAtLeastOne(['Purchasers'])",
        "app.audiences.notInAll(['a', 'b'])",
        "app.importedSegments.inAll(['s'])",
        "app.firebaseInstallationId in ['fid1', 'fid2']",
        "app.firstOpenTimestamp <= ('2025-01-01T10:10:42')",
        "app.firstOpenTimestamp >= ('2022-10-31T14:37:47', 'America/Los_Angeles')",
        "app.firstOpenTimestamp > ('2026-01-01T00:00:00Z')",
        "dateTime < dateTime('2025-01-01T09:00:00')",
        "dateTime >= dateTime('2025-01-01T09:02:30', 'UTC')",
        "device.dateTime < dateTime('2025-01-01T00:00:00', 'America/Los_Angeles')",
        "device.language in ['en-US', 'de', 'de_AT']",
        "app.operatingSystemAndVersion.contains(['Windows'])",
        "app.browserAndVersion == 'Chrome 120'",
        "!(device.os == 'ios') || (percent <= 5 && !false)",
        "  device.os=='ios'&&percent<=1  ",
        "app.userProperty[\"k\"] == \"v\"",
    ])
    func parsesDocumentedSyntax(_ source: String) throws {
        let expression = try ConditionExpression.parse(source)
        #expect(expression.source == source)
    }

    /// Every error names the problem and the 0-based character offset where it was found.
    @Test(arguments: [
        ("", "empty expression", 0),
        ("   ", "empty expression", 3),
        ("device.foo == 'x'", "unknown element 'device.foo'", 0),
        ("true && app.nope", "unknown element 'app.nope'", 8),
        ("device.os == 'ios", "unterminated string (missing closing ')", 13),
        ("device.os = 'ios'", "expected '==' (a single '=' is not an operator)", 10),
        ("true & false", "expected '&&'", 5),
        ("true | false", "expected '||'", 5),
        ("true # false", "unexpected character '#'", 5),
        ("device.country in ['US', 'CA'", "expected ']' after the list of values, found end of expression", 29),
        ("device.country in []", "the list of values is empty", 19),
        ("device.country == 'US'", "expected 'in' after device.country, found '=='", 15),
        ("device.os == 'symbian'", "unknown platform 'symbian' (expected 'android', 'ios' or 'web')", 13),
        ("device.os >= 'ios'", "expected '==' or '!=' after device.os, found '>='", 10),
        ("(true", "expected ')' to close the '(' at offset 0, found end of expression", 5),
        ("true)", "unexpected ')'; expected '&&', '||' or the end", 4),
        ("true true", "unexpected 'true'; expected '&&', '||' or the end", 5),
        ("true &&", "unexpected end of expression; expected a condition", 7),
        ("&& true", "expected a condition, '(' or '!', found '&&'", 0),
        ("app.version >= '2.1.0'", "expected '.' before '>=': compare with app.version.>=(['1.0'])", 12),
        ("app.version > 2", "expected '.' before '>': compare with app.version.>(['1.0'])", 12),
        ("app.version.>=(['2.1.0', '3'])", "SEMANTIC_VERSION_GREATER_EQUAL takes exactly one target value", 25),
        ("app.version.>=(['2.x'])", "'2.x' is not a version (1 to 5 dot-separated numbers)", 16),
        ("app.version.>=(['1.2.3.4.5.6'])", "'1.2.3.4.5.6' is not a version (1 to 5 dot-separated numbers)", 16),
        ("app.version.startsWith(['2'])", "app.version has no method 'startsWith' (expected contains, notContains, exactlyMatches, matches or a comparison such as .>=)", 12),
        ("app.version.contains.x(['2'])", "unexpected '.x' after .contains", 21),
        ("app.version.matches(['(ab'])", "invalid regular expression '(ab': missing ')' at offset 0", 21),
        ("app.version.matches(['a**'])", "invalid regular expression 'a**': bad repetition operator at offset 2", 21),
        ("app.version", "expected an operator after app.version (==, !=, in, or a method such as .contains([...])), found end of expression", 11),
        ("app.userProperty == 'x'", "expected ['key'] after app.userProperty", 17),
        ("app.userProperty.contains(['x'])", "expected ['key'] after app.userProperty", 17),
        ("app.userProperty[''] == 'x'", "the key of app.userProperty is empty", 17),
        ("app.userProperty['k' == 'x'", "expected ']' after the key, found '=='", 21),
        ("app.customSignal['n'] >= 'x'", "expected a number after '>=' (compare versions with version(app.customSignal['n']) >= '1.0')", 25),
        ("app.customSignal['n'] >=", "expected a value after '>=', found end of expression", 24),
        ("app.customSignal['n'].foo(['x'])", "app.customSignal['n'] has no method 'foo' (expected contains, notContains, exactlyMatches, matches or a comparison such as .>=)", 22),
        ("version(app.id) >= '1.0'", "version() takes app.version, app.build, app.userProperty['k'] or app.customSignal['k']", 8),
        ("version(app.customSignal['v']) >= 1", "expected a version (a quoted string), found number 1", 34),
        ("percent < 10", "percent takes '<=', '>' or 'between', found '<'", 8),
        ("percent <= 101", "percentage 101 must be 0 to 100 with at most 6 decimals", 11),
        ("percent <= 1.0000001", "percentage 1.0000001 must be 0 to 100 with at most 6 decimals", 11),
        ("percent <= -1", "percentage -1 must be 0 to 100 with at most 6 decimals", 11),
        ("percent between 40 and 20", "the upper bound of 'between' is below the lower bound", 23),
        ("percent between 10 20", "expected 'and', found number 20", 19),
        ("percent('bad seed') <= 10", "invalid percent seed 'bad seed': up to 32 of A-Z, a-z, 0-9, '-', '_', '.'", 8),
        ("percent <= 'ten'", "expected a percentage, found string 'ten'", 11),
        ("percent.x <= 1", "percent has no method 'x'", 8),
        ("dateTime == dateTime('2025-01-01T00:00:00')", "expected '<', '<=', '>' or '>=' after dateTime, found '=='", 9),
        ("dateTime < dateTime('2025-13-01T00:00:00')", "invalid date '2025-13-01T00:00:00': expected YYYY-MM-DDTHH:MM:SS", 20),
        ("dateTime < dateTime('2025-02-29T00:00:00')", "invalid date '2025-02-29T00:00:00': expected YYYY-MM-DDTHH:MM:SS", 20),
        ("dateTime < dateTime('2025-01-01T00:00:00', 'Mars/Olympus')", "unknown time zone 'Mars/Olympus'", 43),
        ("dateTime < dateTime('2025-01-01T00:00:00Z', 'UTC')", "date '2025-01-01T00:00:00Z' has a UTC offset and a time zone", 20),
        ("app.firstOpenTimestamp <= '2025-01-01'", "expected '(' before the date, found string '2025-01-01'", 26),
        ("app.audiences.has(['x'])", "expected .inAtLeastOne, .inAll, .notInAtLeastOne or .notInAll after app.audiences", 14),
        ("device.country.x in ['US']", "device.country has no method 'x'", 15),
        ("app.firebaseInstallationId in " + "[" + Array(repeating: "'f'", count: 51).joined(separator: ",") + "]",
         "more than 50 installation ids", 30),
    ] as [(String, String, Int)])
    func reportsErrorsWithOffsets(_ source: String, _ message: String, _ offset: Int) {
        #expect(throws: ConditionSyntaxError(message: message, offset: offset)) {
            try ConditionExpression.parse(source)
        }
    }

    @Test func equalityIsBySource() throws {
        #expect(try ConditionExpression.parse("percent <= 1") == ConditionExpression.parse("percent <= 1"))
        #expect(try ConditionExpression.parse("percent <= 1") != ConditionExpression.parse("percent <=1"))
    }

    @Test func offsetsCountCharactersNotBytes() {
        #expect(throws: ConditionSyntaxError(message: "unknown element 'app.nope'", offset: 18)) {
            try ConditionExpression.parse("app.id == '👩‍👩‍👧é' && app.nope == 'x'")
        }
    }

    @Test func stringEscapesKeepRegexBackslashes() throws {
        let context = EvaluationContext(appVersion: "2.5")
        #expect(try ConditionExpression.parse(#"app.version.matches(['^2\.5$'])"#).evaluate(in: context))
        #expect(try !ConditionExpression.parse(#"app.version.matches(['^2\.4$'])"#).evaluate(in: context))
        let quoted = EvaluationContext(userProperties: ["k": "it's"])
        #expect(try ConditionExpression.parse(#"app.userProperty['k'] == 'it\'s'"#).evaluate(in: quoted))
    }

    @Test func rejectsOverlongExpressions() throws {
        let atom = "percent <= 10"
        var source = atom
        while source.count + 4 + atom.count <= ConditionExpression.maxLength { source += " && " + atom }
        _ = try ConditionExpression.parse(source)
        #expect(throws: ConditionSyntaxError(message: "expression longer than 10000 characters", offset: 10_000)) {
            try ConditionExpression.parse(source + " && " + atom)
        }
    }

    @Test func limitsNesting() throws {
        let depth = ConditionExpression.maxDepth
        let nested = String(repeating: "(", count: depth) + "true" + String(repeating: ")", count: depth)
        #expect(try ConditionExpression.parse(nested).evaluate(in: EvaluationContext()))
        let tooDeep = "(" + nested + ")"
        #expect(throws: ConditionSyntaxError(message: "expression nests deeper than 64 levels", offset: 64)) {
            try ConditionExpression.parse(tooDeep)
        }
        let negations = String(repeating: "!", count: 65) + "true"
        #expect(throws: ConditionSyntaxError(message: "expression nests deeper than 64 levels", offset: 64)) {
            try ConditionExpression.parse(negations)
        }
        // Hostile input far past the limit fails fast instead of overflowing the stack.
        #expect(throws: ConditionSyntaxError.self) {
            try ConditionExpression.parse(String(repeating: "(", count: 9_000))
        }
    }

    @Test func longFlatChainsDoNotRecurse() throws {
        let source = Array(repeating: "true", count: 1_200).joined(separator: " && ")
        #expect(try ConditionExpression.parse(source).evaluate(in: EvaluationContext()))
    }
}
