@testable import ServerCore
import ConfigCore
import Foundation
import Testing
import TestSupport

/// A fetch reads its body straight into the evaluation context (`ClientRequest.parseContext`),
/// past the members' list every other client request reads. Both must read every body alike:
/// the same context, or the same error.
@Suite struct FetchContextReadingTests {
    private static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// The context by the members' list, or its error's message.
    private static func byList(_ body: [UInt8]) -> Result<EvaluationContext, APIError> {
        Result { () throws(APIError) in
            try ClientRequest.parseBody(body, limit: 1 << 20).evaluationContext(now: now, defaultPercentSeed: "seed")
        }
    }

    /// The context read straight, or its error's message.
    private static func straight(_ body: [UInt8]) -> Result<EvaluationContext, APIError> {
        Result { () throws(APIError) in
            try ClientRequest.parseContext(body, limit: 1 << 20).context(now: now, defaultPercentSeed: "seed")
        }
    }

    private static func same(_ body: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        switch (byList(body), straight(body)) {
        case (.success(let list), .success(let read)):
            #expect(list == read, "\(String(decoding: body, as: UTF8.self))", sourceLocation: sourceLocation)
        case (.failure(let list), .failure(let read)):
            #expect(list.message == read.message && list.status == read.status,
                    "\(String(decoding: body, as: UTF8.self)): \(list.message) / \(read.message)", sourceLocation: sourceLocation)
        case (let list, let read):
            Issue.record("\(String(decoding: body, as: UTF8.self)): \(list) against \(read)", sourceLocation: sourceLocation)
        }
    }

    /// Every field in each spelling (and odd snake forms), in both orders, twice, with values of
    /// every kind: the last of a spelling wins, the camelCase spelling over the snake_case one.
    @Test func everyFieldInEverySpellingAndOrderReadsAlike() {
        let names = [
            ("appInstanceId", "app_instance_id"), ("appId", "_app_id"), ("appVersion", "app_version_"),
            ("appBuild", "app__build"), ("countryCode", "country_Code"), ("languageCode", "language_code"),
            ("platform", "plat_form"), ("customSignals", "custom_signals"),
            ("analyticsUserProperties", "analytics_user_properties"), ("timeZone", "time_zone"),
            ("firstOpenTime", "first_open_time"), ("randomizationId", "randomization_id"),
        ]
        let values = [#""a""#, #""1:123:ios:ab""#, "12", "1.5", "true", "null", #"{"k": "v", "n": 2, "o": {}}"#, "[1]",
                      #""2026-01-01T00:00:00Z""#, #""é \u00e9 \"q\"""#]
        var bodies = 0
        for (index, (camel, snake)) in names.enumerated() {
            for (first, second) in [(camel, snake), (snake, camel), (snake, snake), (camel, camel)] {
                let one = values[index % values.count], other = values[(index * 3 + 1) % values.count]
                Self.same(Array(#"{"\#(first)": \#(one), "other_member": [1, {"x": null}], "\#(second)": \#(other)}"#.utf8))
                bodies += 1
            }
            for value in values {
                Self.same(Array(#"{"\#(camel)": \#(value), "\#(snake)": "s"}"#.utf8))
                Self.same(Array(#"{"\#(snake)": \#(value)}"#.utf8))
                bodies += 2
            }
        }
        #expect(bodies == 288)
    }

    /// JSON5 forms, escaped names, whitespace, gzip, and what is not JSON or not an object.
    @Test func lenientFormsAndBadBodiesReadAlike() throws {
        let bodies = [
            #"{appInstanceId: 'i', 'appId': "1:1:android:a", country_code: "us"}"#,
            #"{"app\u0049d": "1:1:web:x", "app\u005finstance_id": "i2"}"#,
            "  \n\t ", "", "{}", "[]", "42", #""text""#, "{", #"{"appId": }"#, #"{"appId" "x"}"#, #"{"appId": "x",}"#,
            #"{"appId": "x"} trailing"#, #"{"a": 1e}"#, "{\"appId\": \"\u{7F}\u{0}\"}", #"{"appId": "unterminated}"#,
            #"{"$weird_name": 1, "_": 2, "__": 3, "appId": "x"}"#, "{\"appVersion\": \"\u{1F600}\", \"appId\": \"1:1:Android:z\"}",
        ]
        for body in bodies { Self.same(Array(body.utf8)) }
        let compressed = try GzipWriter.compress(Array(#"{"app_instance_id": "gz", "appId": "1:1:ios:g"}"#.utf8))
        Self.same(compressed)
        Self.same(Array(compressed.dropLast(4)))
    }
}
