import ConfigCore
import ConfigServer
import ServerCore
import Foundation
import TestSupport
import Testing

/// Server-side evaluation (`namespaces/firebase-server:fetch`) as the Admin SDKs evaluate:
/// the id is `randomizationId` (or `appInstanceId`), and a request with neither is evaluated
/// with every percent condition false instead of refused (protocol notes §5.3).
@Suite(.timeLimit(.minutes(1))) final class ServerFetchTests {
    let server: TestServer

    /// The vectors whose seeds a template may carry, each with its own condition and parameter.
    static let vectors = PercentVectors.lowerHalf.enumerated().filter { isValidSeed($0.element.seed) }

    init() throws {
        server = try TestServer { $0.fetch.throttleBurst = 4; $0.fetch.throttlePerMinute = 1 }
        var conditions = [
            #"{"name": "everyone", "expression": "percent <= 100"}"#,
            #"{"name": "anyone", "expression": "percent > 0"}"#,
            #"{"name": "beta", "expression": "app.customSignal['tier'] == 'beta'"}"#,
        ]
        var parameters = [
            #""everyone": {"defaultValue": {"value": "out"}, "conditionalValues": {"everyone": {"value": "in"}}}"#,
            #""anyone": {"defaultValue": {"value": "out"}, "conditionalValues": {"anyone": {"value": "in"}}}"#,
            #""model": {"defaultValue": {"value": "stable"}, "conditionalValues": {"beta": {"value": "next"}}}"#,
        ]
        for (index, vector) in Self.vectors {
            let percent = vector.seed.isEmpty ? "percent" : "percent('\(vector.seed)')"
            conditions.append(#"{"name": "half\#(index)", "expression": "\#(percent) between 0 and 50"}"#)
            parameters.append(#""half\#(index)": {"defaultValue": {"value": "out"}, "conditionalValues": {"half\#(index)": {"value": "in"}}}"#)
        }
        try server.publish(#"{"conditions": [\#(conditions.joined(separator: ","))], "parameters": {\#(parameters.joined(separator: ","))}}"#,
                           namespace: "firebase-server")
    }

    private static func isValidSeed(_ seed: String) -> Bool {
        seed.utf8.allSatisfy { $0 < 0x80 }
    }

    private func fetch(_ body: String, namespace: String = "firebase-server") throws -> TestResponse {
        try server.request("POST", "/v1/projects/demo/namespaces/\(namespace):fetch",
                           headers: [("X-Goog-Api-Key", TestServer.apiKey)], body: body)
    }

    private func entries(_ body: String) throws -> [String: String] {
        let response = try fetch(body)
        #expect(response.status == 200, "\(body): \(response.text)")
        return try #require(try response.json()["entries"] as? [String: String], "\(response.text)")
    }

    /// Each vector's id, sent as `randomizationId`, as `randomization_id` (Python's name) and
    /// as `appInstanceId`, lands where the Admin SDKs put it; with both names sent,
    /// `randomizationId` decides (the app instance id sent beside it would land elsewhere).
    @Test(arguments: vectors.map(\.offset))
    func percentVectorsByEitherName(_ index: Int) throws {
        let vector = PercentVectors.lowerHalf[index]
        let expected = vector.inLowerHalf ? "in" : "out"
        let id = "\"\(vector.randomizationId)\""  // no vector id needs escaping
        let elsewhere = try #require((0..<64).map { "other-\(index)-\($0)" }.first {
            (1...50_000_000).contains(PercentBucket.microPercentile(seed: vector.seed, randomizationId: $0)) != vector.inLowerHalf
        })
        for body in [#"{"randomizationId": \#(id)}"#, #"{"randomization_id": \#(id)}"#, #"{"appInstanceId": \#(id)}"#,
                     #"{"appInstanceId": "\#(elsewhere)", "randomizationId": \#(id)}"#] {
            #expect(try entries(body)["half\(index)"] == expected, "\(body.prefix(80))")
        }
    }

    /// No id, an empty one, or an empty `randomizationId` beside an app instance id: 200, every
    /// percent condition false (even `percent <= 100`), the other conditions as usual.
    @Test(arguments: ["", "{}", #"{"appInstanceId": ""}"#, #"{"randomizationId": ""}"#,
                      #"{"randomizationId": "", "appInstanceId": "i"}"#, #"{"customSignals": {"tier": "beta"}}"#])
    func anonymousRequestsHaveEveryPercentConditionFalse(_ body: String) throws {
        let values = try entries(body)
        #expect(values.filter { $0.value == "in" } == [:])
        #expect(values["model"] == (body.contains("beta") ? "next" : "stable"))
        #expect(try entries(#"{"randomizationId": "someone-\#(body.count)"}"#)["everyone"] == "in")
    }

    /// Anonymous requests share no throttle bucket (there is no instance to count), while an
    /// identified one is throttled under its randomization id.
    @Test func anonymousRequestsAreNotThrottledAsOneInstance() throws {
        for _ in 0..<8 { #expect(try fetch("{}").status == 200) }
        for _ in 0..<4 { #expect(try fetch(#"{"randomizationId": "busy", "appInstanceId": "a"}"#).status == 200) }
        let throttled = try fetch(#"{"randomizationId": "busy", "appInstanceId": "b"}"#)
        #expect(throttled.status == 429)
        #expect(throttled.header("Retry-After") != nil)
        #expect(try fetch(#"{"appInstanceId": "busy"}"#).status == 429)
        #expect(try fetch(#"{"appInstanceId": ""}"#).status == 200)
    }

    /// The client namespace keeps Firebase's answer: no app instance id is a 400, and a
    /// randomization id does not stand in for it.
    @Test(arguments: ["{}", #"{"appInstanceId": "", "appId": "1:424242:web:ab"}"#, #"{"randomizationId": "r", "appId": "1:424242:web:ab"}"#])
    func theClientNamespaceStillRequiresAnAppInstanceId(_ body: String) throws {
        let response = try fetch(body, namespace: "firebase")
        #expect(response.status == 400)
        #expect(response.errorStatus == "INVALID_ARGUMENT")
        #expect(response.text.contains("appInstanceId is required."))
    }
}
