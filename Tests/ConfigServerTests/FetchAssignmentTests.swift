import ConfigCore
import ConfigServer
import ServerCore
import Foundation
import Testing

/// Fetches of templates with rollout, experiment and personalization values: the bytes each
/// instance gets, and that a cached answer never reaches an instance assigned otherwise.
@Suite(.timeLimit(.minutes(1))) final class FetchAssignmentTests {
    let server: TestServer
    var version = 0

    static let template = """
        {"conditions": [{"name": "us", "expression": "device.country in ['US']"}],
         "parameters": {
           "flag": {"defaultValue": {"value": "off"}, "conditionalValues": {
             "us": {"rolloutValue": {"rolloutId": "r1", "value": "on", "percent": 50}}}},
           "color": {"defaultValue": {"value": "gray"}, "conditionalValues": {
             "us": {"experimentValue": {"experimentId": "e1", "variantValue": [
               {"variantId": "A", "value": "red"}, {"variantId": "B", "noChange": true}]}}}},
           "feed": {"defaultValue": {"value": "plain"}, "conditionalValues": {
             "us": {"personalizationValue": {"personalizationId": "p1"}}}},
           "plain": {"defaultValue": {"value": "p"}}
         }}
        """

    init() throws {
        server = try TestServer { $0.fetch.throttleBurst = 0 }
        version = try server.publish(Self.template)
    }

    func fetch(_ instance: String, country: String = "US") throws -> TestResponse {
        try server.request("POST", "/v1/projects/demo/namespaces/firebase:fetch", headers: [("X-Goog-Api-Key", TestServer.apiKey)],
                           body: "{\"appInstanceId\":\"\(instance)\",\"appId\":\"1:424242:android:ab\",\"countryCode\":\"\(country)\"}")
    }

    static func inRollout(_ instance: String) -> Bool {
        InstanceAssignment.isIncluded(id: "r1", microPercent: 50_000_000, appInstanceId: instance)
    }

    static func variant(_ instance: String) -> String {
        InstanceAssignment.variantIndex(experimentId: "e1", variantCount: 2, appInstanceId: instance) == 0 ? "A" : "B"
    }

    func instance(_ predicate: (String) -> Bool) throws -> String {
        let found = (0..<1000).map { "fid-\($0)" }.first(where: predicate)
        return try #require(found)
    }

    /// The experiment description of a fetch answer: its fields, the start time checked apart.
    func experimentDescription(_ variant: String, startTime: String) -> String {
        "{\"affectedParameterKeys\":[\"color\"],\"experimentId\":\"e1\",\"experimentStartTime\":\"\(startTime)\","
            + "\"timeToLiveMillis\":\"15552000000\",\"triggerTimeoutMillis\":\"15552000000\",\"variantId\":\"\(variant)\"}"
    }

    /// The publish time as experimentStartTime carries it: RFC 3339 with milliseconds.
    func startTime() throws -> String {
        let template = try server.admin("GET", "/v1/projects/demo/remoteConfig").json()
        let updateTime = try #require((template["version"] as? [String: Any])?["updateTime"] as? String)
        let timestamp = try #require(Timestamp(rfc3339: updateTime))
        return Timestamp(seconds: timestamp.seconds, nanoseconds: timestamp.nanoseconds / 1_000_000 * 1_000_000).rfc3339
    }

    @Test func anInstanceInTheRolloutGetsItsValueAndMetadata() throws {
        let id = try instance { Self.inRollout($0) && Self.variant($0) == "A" }
        let start = try startTime()
        #expect(start.count == 24, "\(start)")
        #expect(try fetch(id).text == "{\"entries\":{\"color\":\"red\",\"feed\":\"plain\",\"flag\":\"on\",\"plain\":\"p\"},"
                + "\"experimentDescriptions\":[\(experimentDescription("A", startTime: start))],"
                + "\"rolloutMetadata\":[{\"affectedParameterKeys\":[\"flag\"],\"rolloutId\":\"r1\",\"variantId\":\"enabled\"}],"
                + "\"state\":\"UPDATE\",\"templateVersion\":\"\(version)\"}")
    }

    @Test func othersFallThroughAndANoChangeVariantKeepsTheDefault() throws {
        let id = try instance { !Self.inRollout($0) && Self.variant($0) == "B" }
        #expect(try fetch(id).text == "{\"entries\":{\"color\":\"gray\",\"feed\":\"plain\",\"flag\":\"off\",\"plain\":\"p\"},"
                + "\"experimentDescriptions\":[\(experimentDescription("B", startTime: try startTime()))],"
                + "\"state\":\"UPDATE\",\"templateVersion\":\"\(version)\"}")
    }

    @Test func conditionsThatReachNoAssignmentAnswerAsBefore() throws {
        #expect(try fetch("fid-1", country: "DE").text
                == "{\"entries\":{\"color\":\"gray\",\"feed\":\"plain\",\"flag\":\"off\",\"plain\":\"p\"},\"state\":\"UPDATE\",\"templateVersion\":\"\(version)\"}")
    }

    /// Instances that share every condition input but not their rollout or variant take turns:
    /// the answer cached for one must never reach the other.
    @Test func cachedAnswersFollowTheAssignment() throws {
        let inside = try instance { Self.inRollout($0) && Self.variant($0) == "A" }
        let outside = try instance { !Self.inRollout($0) && Self.variant($0) == "A" }
        let otherVariant = try instance { Self.inRollout($0) && Self.variant($0) == "B" }
        for _ in 0..<5 {
            let first = try fetch(inside).json()
            #expect((first["entries"] as? [String: String])?["flag"] == "on")
            #expect(first["rolloutMetadata"] != nil)
            let second = try fetch(outside).json()
            #expect((second["entries"] as? [String: String])?["flag"] == "off")
            #expect(second["rolloutMetadata"] == nil)
            let third = try fetch(otherVariant).json()
            #expect((third["entries"] as? [String: String])?["color"] == "gray")
            #expect(((third["experimentDescriptions"] as? [[String: Any]])?.first?["variantId"] as? String) == "B")
        }
        // Three answers were rendered once each; the twelve fetches after them were cache hits.
        let hits = try server.admin("GET", "/metrics").text.split(separator: "\n")
            .first { $0.hasPrefix("rcs_fetch_answer_cache_hits_total") }?.split(separator: " ").last
        #expect(hits == "12")
    }

    @Test func theDryRunNamesTheDecidingRolloutAndVariant() throws {
        let id = try instance { Self.inRollout($0) && Self.variant($0) == "B" }
        let response = try server.admin("POST", "/v1/projects/demo/remoteConfig:evaluate",
                                        body: "{\"appInstanceId\":\"\(id)\",\"appId\":\"1:424242:ios:ab\",\"countryCode\":\"US\"}")
        #expect(response.status == 200)
        let parameters = try #require((response.json()["explanation"] as? [String: Any])?["parameters"] as? [[String: Any]])
        let byKey = Dictionary(uniqueKeysWithValues: parameters.map { ($0["key"] as? String ?? "", $0) })
        #expect(byKey["flag"]?["rollout"] as? [String: String] == ["rolloutId": "r1", "variantId": "enabled"])
        #expect(byKey["color"]?["experiment"] as? [String: String] == ["experimentId": "e1", "variantId": "B"])
        #expect(byKey["color"]?["source"] as? String == "defaultValue")
        #expect(byKey["feed"]?["personalizationId"] as? String == "p1")
    }
}
