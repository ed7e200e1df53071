import ConfigCore
import Foundation
@testable import ServerCore
import Testing

/// What clients read, end to end in one worker on a manual clock: every fetch and OpenFeature
/// evaluation is counted once per parameter, by source, app version and platform; the worker's
/// writes (`usage flush`) and the hourly review (`usage review`) run when the test moves the clock.
@Suite(.timeLimit(.minutes(1))) final class UsageTests {
    let server: TestServer
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))

    init() throws {
        server = try TestServer(clock: clock) {
            $0.webhooks.allowPrivateAddresses = true
            $0.fetch.throttleBurst = 0
            $0.adminTokens.append(AdminTokenDeclaration(name: "viewer", token: "viewer-token", roles: ["demo": "viewer"]))
        }
        server.runDueJobs()
        try server.publish(Templates.basic)
    }

    /// A fetch of the demo project's client template; its status and ETag.
    @discardableResult
    func fetch(platform: String = "android", appVersion: String?, signals: String = "{}", ifNoneMatch: String? = nil) throws -> TestResponse {
        let version = appVersion.map { ",\"appVersion\":\"\($0)\"" } ?? ""
        let body = "{\"appInstanceId\":\"i-\(UUID().uuidString)\",\"appId\":\"1:424242:\(platform):ab\"\(version),\"customSignals\":\(signals)}"
        let response = try server.request("POST", "/v1/projects/demo/namespaces/firebase:fetch",
                                          headers: [("X-Goog-Api-Key", TestServer.apiKey)] + (ifNoneMatch.map { [("If-None-Match", $0)] } ?? []),
                                          body: body)
        #expect(response.status == 200, "\(response.text)")
        return response
    }

    /// Moves the clock past the flush interval and runs what is due: every count is written.
    func flush() {
        clock.advance(by: 10)
        server.runDueJobs()
    }

    /// The usage report, and one parameter's counts in `window`.
    func report(token: String = TestServer.adminToken) throws -> [String: Any] {
        let response = try server.request("GET", "/v1/projects/demo/remoteConfig:usage", headers: [("Authorization", "Bearer \(token)")])
        #expect(response.status == 200, "\(response.text)")
        return try response.json()
    }

    func counts(_ key: String, _ window: String = "hour", in report: [String: Any]) throws -> [String: Any] {
        let parameters = try #require(report["parameters"] as? [[String: Any]])
        let parameter = try #require(parameters.first { $0["key"] as? String == key })
        return try #require((parameter["windows"] as? [String: Any])?[window] as? [String: Any])
    }

    @Test func everyFetchIsCountedOncePerParameterBySourceAppVersionAndPlatform() throws {
        for _ in 0..<5 { try fetch(appVersion: "1.0") }
        for _ in 0..<3 { try fetch(platform: "ios", appVersion: "2.0") }
        for _ in 0..<2 { try fetch(appVersion: "2.0", signals: #"{"plan":"pro"}"#) }
        let etag = try #require(try fetch(appVersion: nil).header("ETag"))
        let unchanged = try fetch(appVersion: nil, ifNoneMatch: etag)
        #expect(try unchanged.json()["state"] as? String == "NO_CHANGE", "an unchanged answer is an evaluation too")
        #expect(try counts("welcome", in: report())["evaluations"] as? Int == 0, "nothing is written before the worker's flush")
        flush()
        let report = try report()
        let welcome = try counts("welcome", in: report)
        #expect(welcome["evaluations"] as? Int == 12)
        #expect(welcome["bySource"] as? [String: Int] == ["default": 7, "condition:ios": 3, "condition:pro": 2])
        #expect(welcome["byAppVersion"] as? [String: Int] == ["1.0": 5, "2.0": 5, "(not set)": 2])
        #expect(welcome["byPlatform"] as? [String: Int] == ["android": 9, "ios": 3])
        #expect(try counts("limit", in: report)["bySource"] as? [String: Int] == ["default": 12])
        #expect(try counts("local_only", in: report)["bySource"] as? [String: Int] == ["inAppDefault": 12])
        for window in ["day", "week", "month"] {
            #expect(try counts("welcome", window, in: report)["evaluations"] as? Int == 12)
        }
        let parameters = try #require(report["parameters"] as? [[String: Any]])
        #expect(parameters.map { $0["lastEvaluateTime"] as? String } == Array(repeating: "2027-01-15T08:00:00.000Z", count: 3))
        #expect(report["unevaluated"] as? [String] == [] && (report["stale"] as? [[String: Any]])?.isEmpty == true)
        #expect(report["templateVersion"] as? String == "1" && report["staleDays"] as? Int == 30)
        let viewed = try self.report(token: "viewer-token")
        #expect(viewed["parameters"] != nil, "a viewer reads it")
    }

    @Test func openFeatureEvaluationsAreCountedBulkSingleAndRepeated() throws {
        let body = #"{"context":{"targetingKey":"t-1","appVersion":"3.0","platform":"web"}}"#
        let headers = [("X-API-Key", TestServer.apiKey)]
        let bulk = try server.request("POST", "/ofrep/v1/evaluate/flags", headers: headers, body: body)
        #expect(bulk.status == 200)
        let etag = try #require(bulk.header("ETag"))
        let repeated = try server.request("POST", "/ofrep/v1/evaluate/flags", headers: headers + [("If-None-Match", etag)], body: body)
        #expect(repeated.status == 304)
        #expect(try server.request("POST", "/ofrep/v1/evaluate/flags/welcome", headers: headers, body: body).status == 200)
        #expect(try server.request("POST", "/ofrep/v1/evaluate/flags/nothing", headers: headers, body: body).status == 404)
        flush()
        let report = try report()
        #expect(try counts("welcome", in: report)["evaluations"] as? Int == 3, "two bulk answers, one single")
        #expect(try counts("welcome", in: report)["byAppVersion"] as? [String: Int] == ["3.0": 3])
        #expect(try counts("limit", in: report)["evaluations"] as? Int == 2)
        #expect(try counts("limit", in: report)["byPlatform"] as? [String: Int] == ["web": 2])
    }

    @Test func windowsRollWithTheClockAndCountsLandInTheirHour() throws {
        try fetch(appVersion: "1.0")
        clock.advance(by: 3_600 - 10)
        try fetch(appVersion: "1.0")
        // The flush at the hour's start carries the second fetch into the hour it was made in.
        clock.advance(by: 10)
        server.runDueJobs()
        try fetch(appVersion: "1.0")
        flush()
        #expect(try counts("welcome", "hour", in: report())["evaluations"] as? Int == 3, "this hour and the one before")
        clock.advance(by: 3_600)
        server.runDueJobs()
        #expect(try counts("welcome", "hour", in: report())["evaluations"] as? Int == 1)
        #expect(try counts("welcome", "day", in: report())["evaluations"] as? Int == 3)
        clock.advance(by: 2 * 86_400)
        server.runDueJobs()
        #expect(try counts("welcome", "day", in: report())["evaluations"] as? Int == 0)
        #expect(try counts("welcome", "week", in: report())["evaluations"] as? Int == 3)
    }

    @Test func staleParametersAreReportedByWebhookAndGaugeUnlessPermanent() throws {
        let receiver = try WebhookReceiver()
        let hook = try server.admin("POST", "/v1/projects/demo/webhooks",
                                    body: #"{"url":"\#(receiver.url)","events":["parameter.stale"],"description":"stale"}"#)
        #expect(hook.status == 200, "\(hook.text)")
        try fetch(appVersion: "1.0")
        try fetch(platform: "ios", appVersion: "1.0")
        flush()
        #expect(try server.admin("POST", "/v1/projects/demo/parameters/limit:markPermanent").json()["changed"] as? Bool == true)
        #expect(try server.request("POST", "/v1/projects/demo/parameters/welcome:markPermanent",
                                   headers: [("Authorization", "Bearer viewer-token")]).status == 403, "an editor's change")
        #expect(try server.admin("POST", "/v1/projects/demo/parameters/ghost:markPermanent").status == 404)
        // Half a month on, one fetch; a month after the first, it is the one the last thirty days
        // saw: one value of each parameter.
        clock.advance(by: 15 * 86_400)
        server.runDueJobs()
        try fetch(appVersion: "1.0")
        flush()
        clock.advance(by: 16 * 86_400)
        server.runDueJobs()
        let report = try report()
        let stale = try #require(report["stale"] as? [[String: Any]])
        #expect(stale.map { $0["key"] as? String } == ["local_only", "welcome"] && stale.allSatisfy { $0["reason"] as? String == "ONE_VALUE" },
                "welcome served one value for 30 days; limit is permanent")
        let events = try receiver.requests(atLeast: 2).map(\.json)
        #expect(Set(events.compactMap { ($0["data"] as? [String: Any])?["parameter"] as? [String: Any] }.compactMap { $0["key"] as? String })
            == ["local_only", "welcome"])
        #expect(events.allSatisfy { $0["type"] as? String == "parameter.stale" })
        let metrics = try server.admin("GET", "/metrics").text
        #expect(metrics.contains(#"rcs_parameters_stale{worker="0",project="demo",environment="production",namespace="firebase"} 2"#))
        #expect(metrics.contains(#"rcs_parameters_unevaluated{worker="0",project="demo",environment="production",namespace="firebase"} 0"#))
        let settings = try server.admin("PATCH", "/v1/projects/demo/usageSettings", body: #"{"staleDays": 60}"#)
        #expect(settings.status == 200)
        #expect(try settings.json()["staleDays"] as? Int == 60)
        #expect(try (self.report()["stale"] as? [[String: Any]])?.isEmpty == true, "not watched for sixty days yet")
        let audit = try server.admin("GET", "/v1/auditLog?project=demo").text
        #expect(audit.contains("parameter.permanent") && audit.contains("usage.settings"))
    }
}
