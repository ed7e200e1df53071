@testable import ServerCore
import Foundation
import ConfigCore
import Testing

@Suite struct ClientRequestTests {
    private func request(_ json: String) throws -> ClientRequest {
        try ClientRequest(body: Array(json.utf8), maxInflatedBytes: 1 << 20)
    }

    @Test func snakeCaseReadsAsCamelCaseAndCamelCaseWinsWhenBothAreSent() throws {
        let body = try request(#"{"app_instance_id": "snake", "appInstanceId": "camel", "country_code": "de", "x_y": 1}"#)
        #expect(body.string("appInstanceId") == "camel")
        #expect(body.string("countryCode") == "de")
        #expect(body.string("xY") == "1")
        #expect(body.string("app_instance_id") == nil)
    }

    @Test func aRepeatedMemberTakesItsLastValue() throws {
        let body = try request(#"{"appId": "first", "appId": "second", "app_version": "1", "app_version": "2"}"#)
        #expect(body.string("appId") == "second")
        #expect(body.string("appVersion") == "2")
    }

    @Test func stringsWithAndWithoutEscapesAndOtherScalarsReadAsText() throws {
        let body = try request(#"{a: 'plain', b: "tab\tquote\" \u00e9", c: 42, d: 1.5, e: true, f: null, g: [1]}"#)
        #expect(body.string("a") == "plain")
        #expect(body.string("b") == "tab\tquote\" é")
        #expect(body.string("c") == "42")
        #expect(body.string("d") == "1.5")
        #expect(body.string("e") == "true")
        #expect(body.string("f") == nil)
        #expect(body.string("g") == nil)
        #expect(body.int64("c") == 42)
    }

    /// What `json.dumps` and many encoders send for characters beyond the BMP.
    @Test func surrogatePairsReadAsOneCharacterAndLoneHalvesAsReplacement() throws {
        let body = try request(#"{"a": "hi \uD83D\uDE0A!", "b": "\uD83D", "c": "\uDE0Ax", "d": "\ud83d\ude0a"}"#)
        #expect(body.string("a") == "hi 😊!")
        #expect(body.string("b") == "\u{FFFD}")
        #expect(body.string("c") == "\u{FFFD}x")
        #expect(body.string("d") == "😊")
        #expect(throws: (any Error).self) { try request(#"{"a": "\u+0AB"}"#) }
    }

    private func context(_ json: String) throws -> EvaluationContext {
        try request(json).evaluationContext(now: Date(timeIntervalSince1970: 0), defaultPercentSeed: "seed")
    }

    @Test func mapsKeepTheirOwnKeys() throws {
        let context = try context(#"{"custom_signals": {"plan_tier": "pro", "seats": 3, "deep": {"x": 1}}}"#)
        #expect(context.customSignals == ["plan_tier": "pro", "seats": "3"])
        #expect(context.userProperties == [:])
    }

    @Test func theEvaluationContextReadsEveryFieldInEitherSpelling() throws {
        let full = try context("""
            {"app_instance_id": "fid", "appId": "1:1:android:ab", "app_version": "2.1", "appBuild": 7,
             "country_code": "de", "languageCode": "de-AT", "time_zone": "Europe/Vienna",
             "analytics_user_properties": {"tier": "gold"}, "first_open_time": "2026-01-02T03:04:05Z"}
            """)
        #expect(full == EvaluationContext(
            appId: "1:1:android:ab", appVersion: "2.1", appBuild: "7", platform: "android", countryCode: "de",
            languageCode: "de-AT", appInstanceId: "fid", userProperties: ["tier": "gold"],
            firstOpenTime: Date(timeIntervalSince1970: 1_767_323_045), timeZone: "Europe/Vienna",
            now: Date(timeIntervalSince1970: 0), defaultPercentSeed: "seed"))
        // First-open times with a fraction or an offset; anything else is no time at all.
        #expect(try context(#"{"firstOpenTime": "2026-01-02T04:04:05.250+01:00"}"#).firstOpenTime
                == Date(timeIntervalSince1970: 1_767_323_045.25))
        #expect(try context(#"{"firstOpenTime": "2026-01-02"}"#).firstOpenTime == nil)
        // A sent platform beats the app id's; each id is kept under its own name (the
        // conditions choose which one they read).
        let server = try context(#"{"randomizationId": "r", "platform": "ios", "appId": "1:1:android:ab"}"#)
        #expect(server.randomizationId == "r" && server.appInstanceId == nil && server.platform == "ios")
        let both = try context(#"{"randomization_id": "r", "appInstanceId": "i"}"#)
        #expect(both.randomizationId == "r" && both.appInstanceId == "i")
        // The last duplicate wins even when it is not text.
        let duplicated = try context(#"{"appVersion": "1", "appVersion": {"x": 1}, "customSignals": {"a": "b"}, "customSignals": 3}"#)
        #expect(duplicated.appVersion == nil && duplicated.customSignals == [:])
        #expect(try context("{}") == EvaluationContext(now: Date(timeIntervalSince1970: 0), defaultPercentSeed: "seed"))
    }

    @Test func onlyAnObjectIsABody() throws {
        #expect(try request("  \n").string("appId") == nil)
        #expect(throws: ClientRequest.Invalid.self) { try request("[1, 2]") }
        #expect(throws: ClientRequest.Invalid.self) { try request(#""text""#) }
        #expect(throws: ClientRequest.Invalid.self) { try request(#"{"a": 1} trailing"#) }
        #expect(throws: ClientRequest.Invalid.self) { try request(#"{"a": "unterminated}"#) }
        #expect(throws: ClientRequest.Invalid.self) { try request(#"{"a": "bad \u12"}"#) }
    }

    /// The client namespace needs an app instance id; the server namespace takes the id its
    /// percent conditions hash, and has none for an anonymous request.
    @Test func theFetchingInstanceOfEachNamespace() throws {
        // As a fetch reads it: its body's context, then the instance.
        func instance(_ body: String, _ namespace: TemplateNamespace) throws(APIError) -> String? {
            let context = try ClientRequest.parseContext(Array(body.utf8), limit: 1 << 20).context(now: Date(), defaultPercentSeed: "")
            return try ClientRequest.fetchingInstance(namespace: namespace, appInstanceId: context.appInstanceId,
                                                      randomizationId: context.randomizationId)
        }
        for body in ["{}", #"{"appInstanceId": ""}"#, #"{"randomizationId": "r"}"#] {
            #expect(throws: APIError.self) { try instance(body, .client) }
        }
        #expect(try instance(#"{"randomizationId": "r", "appInstanceId": "i"}"#, .client) == "i")
        let server = { (body: String) throws(APIError) in try instance(body, .server) }
        #expect(try server(#"{"randomizationId": "r", "appInstanceId": "i"}"#) == "r")
        #expect(try server(#"{"randomization_id": "r"}"#) == "r")
        #expect(try server(#"{"appInstanceId": "i"}"#) == "i")
        for anonymous in ["{}", "", #"{"appInstanceId": ""}"#, #"{"randomizationId": "", "appInstanceId": "i"}"#] {
            #expect(try server(anonymous) == nil, "\(anonymous)")
        }
    }

    @Test func thePlatformComesFromTheThirdFieldOfTheAppId() {
        #expect(ClientRequest.platform(ofAppId: "1:123:android:ab") == "android")
        #expect(ClientRequest.platform(ofAppId: "1:123:IOS:ab:cd") == "ios")
        #expect(ClientRequest.platform(ofAppId: "1:123:web") == nil)
        #expect(ClientRequest.platform(ofAppId: "1:123:tvos:ab") == nil)
    }
}
