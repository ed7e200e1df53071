@testable import ConfigServer
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

    @Test func mapsKeepTheirOwnKeys() throws {
        let body = try request(#"{"custom_signals": {"plan_tier": "pro", "seats": 3, "deep": {"x": 1}}}"#)
        #expect(body.map("customSignals") == ["plan_tier": "pro", "seats": "3"])
        #expect(body.map("analyticsUserProperties") == [:])
    }

    @Test func onlyAnObjectIsABody() throws {
        #expect(try request("  \n").string("appId") == nil)
        #expect(throws: ClientRequest.Invalid.self) { try request("[1, 2]") }
        #expect(throws: ClientRequest.Invalid.self) { try request(#""text""#) }
        #expect(throws: ClientRequest.Invalid.self) { try request(#"{"a": 1} trailing"#) }
        #expect(throws: ClientRequest.Invalid.self) { try request(#"{"a": "unterminated}"#) }
        #expect(throws: ClientRequest.Invalid.self) { try request(#"{"a": "bad \u12"}"#) }
    }

    @Test func thePlatformComesFromTheThirdFieldOfTheAppId() {
        #expect(ClientRequest.platform(ofAppId: "1:123:android:ab") == "android")
        #expect(ClientRequest.platform(ofAppId: "1:123:IOS:ab:cd") == "ios")
        #expect(ClientRequest.platform(ofAppId: "1:123:web") == nil)
        #expect(ClientRequest.platform(ofAppId: "1:123:tvos:ab") == nil)
    }
}
