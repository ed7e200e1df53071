import Foundation
import Testing
@testable import ConfigClient

@Suite struct ConfigValueTests {
    private struct Banner: Codable, Equatable {
        var text: String
        var color: String
    }

    private func client(remote: [String: String], defaults: [String: DefaultValue] = [:]) async throws -> ConfigClient {
        let client = ConfigClient(configuration: testConfiguration(), transport: FakeTransport([fetchAnswer(remote, version: 1)]), now: { Date() })
        client.setDefaults(defaults)
        try await client.fetchAndActivate()
        return client
    }

    @Test(arguments: ["1", "true", "T", "yes", "Y", "on", " TRUE "])
    func trueSpellings(_ text: String) {
        #expect(ConfigValue(stringValue: text, source: .remote).boolValue == true)
    }

    @Test(arguments: ["0", "false", "F", "no", "n", "OFF"])
    func falseSpellings(_ text: String) {
        #expect(ConfigValue(stringValue: text, source: .remote).boolValue == false)
    }

    @Test(arguments: ["", "maybe", "2"])
    func otherStringsAreNotBooleans(_ text: String) {
        #expect(ConfigValue(stringValue: text, source: .remote).boolValue == nil)
    }

    @Test func numbers() {
        #expect(ConfigValue(stringValue: "3.0", source: .remote).intValue == 3)
        #expect(ConfigValue(stringValue: "3.5", source: .remote).intValue == nil)
        #expect(ConfigValue(stringValue: "1e30", source: .remote).intValue == nil)
        #expect(ConfigValue(stringValue: "nan", source: .remote).doubleValue == nil)
        #expect(ConfigValue(stringValue: " 2.5", source: .default).doubleValue == 2.5)
        #expect(ConfigValue.missing.intValue == nil)
    }

    @Test func unparsableRemoteValueFallsBackToTheInAppDefaultThenTheCallerDefault() async throws {
        let client = try await client(remote: ["flag": "banana", "count": "lots"], defaults: ["flag": true])
        #expect(client.bool("flag", default: false))
        #expect(client.int("count", default: 9) == 9)
        #expect(!client.bool("absent", default: false))
        #expect(client.bool("absent", default: true))
    }

    @Test func sourcesOfEachKey() async throws {
        let client = try await client(remote: ["r": "x"], defaults: ["d": 1.5, "r": "y"])
        #expect(client.value(forKey: "r") == ConfigValue(stringValue: "x", source: .remote))
        #expect(client.value(forKey: "d") == ConfigValue(stringValue: "1.5", source: .default))
        #expect(client.value(forKey: "s") == .missing)
        #expect(client.keys() == ["r", "d"])
        #expect(client.keys(source: .default) == ["d"])
        #expect(client.string("s", default: "fallback") == "fallback")
    }

    @Test func jsonValues() async throws {
        let fallback = Banner(text: "none", color: "grey")
        let client = try await client(
            remote: ["banner": #"{"text":"Sale","color":"red"}"#, "broken": "{"],
            defaults: ["local": try .json(Banner(text: "Local", color: "blue"))]
        )
        #expect(client.json("banner", default: fallback) == Banner(text: "Sale", color: "red"))
        #expect(client.json("broken", default: fallback) == fallback)
        #expect(client.json("local", as: Banner.self, default: fallback) == Banner(text: "Local", color: "blue"))
        #expect(client.json("list", as: [Int].self, default: [1, 2]) == [1, 2])
    }

    @Test func defaultLiteralsBecomeServerStrings() {
        let values: [DefaultValue] = [true, 7, 0.5, "text"]
        #expect(values.map(\.stringValue) == ["true", "7", "0.5", "text"])
    }
}
