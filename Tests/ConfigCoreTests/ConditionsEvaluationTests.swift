import Foundation
import Testing
@testable import ConfigCore

@Suite struct ConditionsEvaluationTests {
    private func evaluate(_ source: String, _ context: EvaluationContext) throws -> Bool {
        try ConditionExpression.parse(source).evaluate(in: context)
    }

    private static let iosApp = EvaluationContext(
        appId: "1:123456789012:ios:0a1b2c3d4e5f6789", appVersion: "2.10.1", appBuild: "415",
        countryCode: "us", languageCode: "de_AT", appInstanceId: "fid-1",
        customSignals: ["plan": "pro ", "level": "7", "v": "1.2", "ratio": "0.5"],
        userProperties: ["tier": "gold", "age": "21"]
    )

    @Test(arguments: [
        ("true || false && false", true),     // && binds tighter than ||
        ("(true || false) && false", false),
        ("!true && false", false),            // ! binds tightest
        ("!(true && false)", true),
        ("!!true", true),
        ("false || false || true", true),
        ("true && true && !false", true),
    ])
    func precedence(_ source: String, _ expected: Bool) throws {
        #expect(try evaluate(source, EvaluationContext()) == expected)
    }

    @Test(arguments: [
        ("device.os == 'ios'", true),
        ("device.os == 'IOS'", true),
        ("device.os != 'android'", true),
        ("device.os == 'android'", false),
        ("app.id == '1:123456789012:ios:0a1b2c3d4e5f6789'", true),
        ("app.id != '1:123456789012:ios:0a1b2c3d4e5f6789'", false),
        ("app.id.contains([':ios:'])", true),
        ("app.version == '2.10.1'", true),
        ("app.version in ['1.0', '2.10.1']", true),
        ("app.version.contains(['3', '10'])", true),
        ("app.version.notContains(['3', '10'])", false),
        ("app.version.exactlyMatches([' 2.10.1 '])", true),
        ("app.version.matches(['^2\\.1'])", true),   // partial match, anchored start
        ("app.version.matches(['^2\\.1$'])", false),
        ("app.version.>(['2.9'])", true),           // versions compare numerically per segment
        ("app.version.>=(['2.10.1.0'])", true),
        ("app.version.<(['2.10.1'])", false),
        ("app.version.<=(['2.10.1'])", true),
        ("app.version.==(['2.10.1'])", true),
        ("app.version.!=(['2.10.1'])", false),
        ("app.build.>=(['400'])", true),
        ("app.build.<(['400'])", false),
        ("device.country in ['GB', 'US']", true),   // case-insensitive country codes
        ("device.country in ['GB']", false),
        ("device.language in ['de']", true),        // a bare language covers its regions
        ("device.language in ['de-AT']", true),     // '-' and '_' are interchangeable
        ("device.language in ['de-CH', 'en']", false),
        ("app.firebaseInstallationId in ['fid-0', 'fid-1']", true),
        ("app.firebaseInstallationId in ['FID-1']", false),
        ("app.userProperty['tier'].exactlyMatches(['gold'])", true),
        ("app.userProperty['tier'] == 'gold'", true),
        ("app.userProperty['tier'] != 'gold'", false),
        ("app.userProperty['age'] >= 21", true),
        ("app.userProperty['age'] > 21", false),
        ("app.userProperty['age'] == 21.0", true),
        ("app.customSignal['plan'].exactlyMatches(['pro'])", true),  // trims both sides
        ("app.customSignal['plan'] == 'pro'", false),                // == is exact
        ("app.customSignal['plan'].contains(['ro'])", true),
        ("app.customSignal['plan'].matches(['^p.o'])", true),
        ("app.customSignal['level'] < 10", true),
        ("app.customSignal['level'] != 7", false),
        ("app.customSignal['ratio'] <= 0.5", true),
        ("app.customSignal['plan'] > 1", false),     // not a number: false, even for !=
        ("app.customSignal['plan'] != 1", false),
        ("app.customSignal['v'].==(['1.2.0'])", true),
        ("version(app.customSignal['v']) < '1.10'", true),
        ("version(app.version) > '2.9.9'", true),
        ("app.audiences.inAtLeastOne(['buyers'])", false),   // no input in fetch requests
        ("app.audiences.notInAll(['buyers'])", false),
        ("app.operatingSystemAndVersion.contains(['iOS'])", false),
    ])
    func elements(_ source: String, _ expected: Bool) throws {
        #expect(try evaluate(source, Self.iosApp) == expected)
    }

    /// Every rule whose input is missing is false, including the negative operators.
    @Test(arguments: [
        "device.os == 'ios'", "device.os != 'ios'", "app.id != 'x'", "app.version.notContains(['x'])",
        "app.version.!=(['1'])", "app.build in ['1']", "device.country in ['US']", "device.language in ['en']",
        "app.firebaseInstallationId in ['a']", "app.userProperty['k'] != 'x'", "app.customSignal['k'] != 3",
        "app.customSignal['k'].notContains(['x'])", "version(app.customSignal['k']) != '1'",
        "percent <= 100", "percent > 0", "app.firstOpenTimestamp < ('2999-01-01T00:00:00')",
    ])
    func missingInputIsFalse(_ source: String) throws {
        #expect(try !evaluate(source, EvaluationContext()))
    }

    @Test func platformComesFromAppIdWhenNotGiven() throws {
        let android = EvaluationContext(appId: "1:42:android:abc")
        #expect(try evaluate("device.os == 'android'", android))
        let web = EvaluationContext(appId: "1:42:web:abc", platform: "ios")
        #expect(try evaluate("device.os == 'ios'", web))   // an explicit platform wins
        #expect(try !evaluate("device.os == 'web'", EvaluationContext(appId: "malformed")))
    }

    @Test func dateTimeUsesTheNamedZone() throws {
        // 2025-01-01T00:00:00 in Los Angeles (PST, UTC-8) is 08:00Z.
        let rule = "dateTime < dateTime('2025-01-01T00:00:00', 'America/Los_Angeles')"
        let before = EvaluationContext(now: try date("2025-01-01T07:59:59Z"))
        let after = EvaluationContext(now: try date("2025-01-01T08:00:00Z"))
        #expect(try evaluate(rule, before))
        #expect(try !evaluate(rule, after))
        // Summer time: 2025-07-01T00:00:00 PDT (UTC-7) is 07:00Z.
        let summer = "dateTime >= dateTime('2025-07-01T00:00:00', 'America/Los_Angeles')"
        #expect(try evaluate(summer, EvaluationContext(now: try date("2025-07-01T07:00:00Z"))))
        #expect(try !evaluate(summer, EvaluationContext(now: try date("2025-07-01T06:59:59Z"))))
    }

    @Test func dateTimeWithoutZoneUsesTheDeviceZoneElseUTC() throws {
        let rule = "dateTime >= dateTime('2025-01-01T09:00:00')"
        let now = try date("2025-01-01T08:30:00Z")
        #expect(try !evaluate(rule, EvaluationContext(now: now)))                           // UTC
        #expect(try evaluate(rule, EvaluationContext(timeZone: "Europe/Berlin", now: now))) // 09:30 local
        #expect(try !evaluate(rule, EvaluationContext(timeZone: "Not/AZone", now: now)))    // falls back to UTC
        let offset = "dateTime <= dateTime('2025-01-01T10:00:00+01:00')"
        #expect(try evaluate(offset, EvaluationContext(timeZone: "Asia/Tokyo", now: now)))
    }

    @Test func firstOpenTimestampDefaultsToGMT() throws {
        let opened = EvaluationContext(firstOpenTime: try date("2022-10-31T14:37:47Z"))
        #expect(try evaluate("app.firstOpenTimestamp <= ('2022-10-31T14:37:47')", opened))
        #expect(try !evaluate("app.firstOpenTimestamp < ('2022-10-31T14:37:47')", opened))
        // 14:37:47 in Los Angeles (PDT) is 21:37:47Z, so the client opened earlier.
        #expect(try evaluate("app.firstOpenTimestamp < ('2022-10-31T14:37:47', 'America/Los_Angeles')", opened))
        #expect(try evaluate("app.firstOpenTimestamp > dateTime('2022-10-31')", opened))
    }

    @Test func percentUsesAppInstanceIdAndTheDefaultSeed() throws {
        // From the Admin SDK vectors: seed "3" + "three" is at 6 701 947 (6.701947 %).
        let three = EvaluationContext(appInstanceId: "three", defaultPercentSeed: "3")
        #expect(try evaluate("percent <= 6.701947", three))
        #expect(try !evaluate("percent <= 6.701946", three))
        #expect(try evaluate("percent > 6.701946", three))
        #expect(try evaluate("percent between 6.701946 and 6.701947", three))
        #expect(try !evaluate("percent between 6.701947 and 7", three))   // lower bound exclusive
        // An explicit seed ignores the default one.
        let other = EvaluationContext(appInstanceId: "three", defaultPercentSeed: "zzz")
        #expect(try evaluate("percent('3') between 6.701946 and 6.701947", other))
        // Empty default seed: the unseeded hash ("" + "😊" is at 9 911 325).
        let emoji = EvaluationContext(appInstanceId: "😊")
        #expect(try evaluate("percent between 9.911324 and 9.911325", emoji))
        #expect(try evaluate("percent('') between 9.911324 and 9.911325", emoji))
    }

    @Test func regexRulesRunInLinearTime() throws {
        let hostile = EvaluationContext(customSignals: ["s": String(repeating: "a", count: 249) + "!"])
        let start = ContinuousClock.now
        #expect(try !evaluate("app.customSignal['s'].matches(['^(a+)+$'])", hostile))
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    private func date(_ text: String) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: text.count == 10 ? text + "T00:00:00Z" : text))
    }
}
