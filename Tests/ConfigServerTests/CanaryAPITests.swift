import ConfigCore
import ConfigServer
import ServerCore
import Foundation
import Testing

/// The staged-publish endpoints: starting, showing, growing, promoting and aborting a canary,
/// the guards around them, and what fetches, the dry run, adoption and the history show.
@Suite(.timeLimit(.minutes(1))) final class CanaryAPITests {
    let server: TestServer
    /// Moved by the scheduled promotion's test only.
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    static let path = "/v1/projects/demo/remoteConfig"

    init() throws {
        server = try TestServer(clock: clock) { $0.fetch.throttleBurst = 0 }
        try server.publish(Self.template("stable"))
    }

    static func template(_ value: String) -> String {
        "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"\(value)\"}}}}"
    }

    func put(_ value: String, query: String, ifMatch: String = "etag-424242-1") throws -> TestResponse {
        try server.admin("PUT", Self.path + query, headers: [("If-Match", ifMatch)], body: Self.template(value))
    }

    func post(_ method: String, ifMatch: String?, body: String = "") throws -> TestResponse {
        try server.admin("POST", Self.path + ":" + method, headers: ifMatch.map { [("If-Match", $0)] } ?? [], body: body)
    }

    func fetch(_ instance: String) throws -> [String: Any] {
        try server.request("POST", "/v1/projects/demo/namespaces/firebase:fetch", headers: [("X-Goog-Api-Key", TestServer.apiKey)],
                           body: "{\"appInstanceId\":\"\(instance)\",\"appId\":\"1:424242:web:ab\"}").json()
    }

    func errorMessage(_ response: TestResponse) -> String {
        ((try? response.json())?["error"] as? [String: Any])?["message"] as? String ?? response.text
    }

    @Test func aCanaryIsServedToItsShareOnly() throws {
        let started = try put("canary", query: "?canaryPercent=50")
        #expect(started.status == 200, "\(started.text)")
        #expect(started.header("ETag") == "etag-424242-2")
        #expect((try started.json()["version"] as? [String: Any])?["canary"] as? Bool == true)
        // The active version stays the stable one for the Firebase API.
        let active = try server.admin("GET", Self.path)
        #expect(active.header("ETag") == "etag-424242-1")
        let versions = try (0..<40).map { try fetch("instance-\($0)")["templateVersion"] as? String }
        #expect(Set(versions) == ["1", "2"], "half of 40 instances, each its own way: \(versions)")
        // An instance keeps its side.
        for index in 0..<40 {
            #expect(try fetch("instance-\(index)")["templateVersion"] as? String == versions[index])
        }
        let member = try #require(versions.firstIndex(of: "2"))
        let dryRun = try server.admin("POST", Self.path + ":evaluate", body: "{\"appInstanceId\":\"instance-\(member)\"}").json()
        #expect(dryRun["templateVersion"] as? String == "2" && (dryRun["entries"] as? [String: String])?["k"] == "canary")
    }

    /// An anonymous server-side evaluation has no bucket: it always gets the stable version.
    @Test func anAnonymousServerFetchIsNeverInACanary() throws {
        let path = "/v1/projects/demo/namespaces/firebase-server/remoteConfig"
        #expect(try server.admin("PUT", path, headers: [("If-Match", "*")], body: Self.template("stable")).status == 200)
        let started = try server.admin("PUT", path + "?canaryPercent=100", headers: [("If-Match", "etag-424242-1")],
                                       body: Self.template("canary"))
        #expect(started.status == 200, "\(started.text)")
        let fetch = "/v1/projects/demo/namespaces/firebase-server:fetch"
        let anonymous = try server.request("POST", fetch, headers: [("X-Goog-Api-Key", TestServer.apiKey)], body: "{}").json()
        #expect(anonymous["templateVersion"] as? String == "1")
        let identified = try server.request("POST", fetch, headers: [("X-Goog-Api-Key", TestServer.apiKey)],
                                            body: "{\"randomizationId\":\"someone\"}").json()
        #expect(identified["templateVersion"] as? String == "2", "a share of 100 % takes every identified instance")
    }

    @Test func statusAndGrowth() throws {
        #expect(try post("canary", ifMatch: "*", body: "{\"percent\": 20}").status == 404)
        #expect(try server.admin("GET", Self.path + ":canary").status == 404)
        _ = try put("canary", query: "?canaryPercent=5")
        let status = try server.admin("GET", Self.path + ":canary")
        #expect(status.status == 200 && status.header("ETag") == "etag-424242-2")
        let json = try status.json()
        #expect(json["canaryVersion"] as? String == "2" && json["stableVersion"] as? String == "1")
        #expect((json["percent"] as? NSNumber)?.doubleValue == 5)
        #expect((json["updateUser"] as? [String: String])?["email"] == "tester@example.com")

        #expect(try post("canary", ifMatch: nil, body: "{\"percent\": 20}").status == 400, "If-Match is required")
        let stale = try post("canary", ifMatch: "etag-424242-1", body: "{\"percent\": 20}")
        #expect(stale.status == 400 && stale.errorStatus == "FAILED_PRECONDITION")
        let smaller = try post("canary", ifMatch: "etag-424242-2", body: "{\"percent\": 2}")
        #expect(smaller.status == 400 && errorMessage(smaller).contains("can only grow"))
        #expect(try post("canary", ifMatch: "etag-424242-2", body: "{\"percent\": 101}").status == 400)
        #expect(try post("canary", ifMatch: "etag-424242-2", body: "{}").status == 400)
        let grown = try post("canary", ifMatch: "etag-424242-2", body: "{\"percent\": 20}")
        let grownShare = (try grown.json()["percent"] as? NSNumber)?.doubleValue
        #expect(grown.status == 200 && grownShare == 20)
        #expect(try post("canary?percent=25", ifMatch: "*").status == 200)
    }

    @Test func publishesWaitForTheCanary() throws {
        _ = try put("canary", query: "?canaryPercent=5")
        for response in [try server.admin("PUT", Self.path, headers: [("If-Match", "*")], body: Self.template("other")),
                         try put("again", query: "?canaryPercent=5", ifMatch: "*"),
                         try server.admin("POST", Self.path + ":rollback", body: "{\"versionNumber\": 1}")] {
            #expect(response.status == 400 && response.errorStatus == "FAILED_PRECONDITION")
            #expect(errorMessage(response).hasPrefix("[CANARY_RUNNING]: Version 2"))
        }
        // A dry run of a template still validates.
        #expect(try server.admin("PUT", Self.path + "?validateOnly=true", headers: [("If-Match", "*")], body: Self.template("x")).status == 200)
    }

    @Test func badSharesAndAFirstVersion() throws {
        for query in ["?canaryPercent=0", "?canaryPercent=100.5", "?canaryPercent=half", "?canaryPercent=5&promoteAfterSeconds=-1"] {
            let response = try put("canary", query: query)
            #expect(response.status == 400 && response.errorStatus == "INVALID_ARGUMENT", "\(query): \(response.text)")
        }
        #expect(try put("canary", query: "?canaryPercent=5", ifMatch: "etag-424242-7").status == 400)
        _ = try server.admin("POST", "/v1/projects", body: "{\"projectId\":\"fresh\",\"projectNumber\":\"77\"}")
        let first = try server.admin("PUT", "/v1/projects/fresh/remoteConfig?canaryPercent=5", headers: [("If-Match", "*")],
                                     body: Self.template("x"))
        #expect(first.status == 400 && errorMessage(first).contains("stable version"))
    }

    @Test func promotionAndItsHistory() throws {
        #expect(try post("promote", ifMatch: "*").status == 404)
        _ = try put("canary", query: "?canaryPercent=5")
        #expect(try post("promote", ifMatch: nil).status == 400)
        #expect(try post("promote", ifMatch: "etag-424242-1").errorStatus == "FAILED_PRECONDITION")
        let promoted = try post("promote", ifMatch: "etag-424242-2")
        #expect(promoted.status == 200 && promoted.header("ETag") == "etag-424242-3")
        #expect(try server.admin("GET", Self.path + ":canary").status == 404)
        #expect(try fetch("anyone")["entries"] as? [String: String] == ["k": "canary"])
        let history = try #require(try server.admin("GET", Self.path + ":listVersions").json()["versions"] as? [[String: Any]])
        #expect(history.map { $0["versionNumber"] as? String } == ["3", "2", "1"])
        #expect(history[0]["updateType"] as? String == "CANARY_PROMOTION" && history[0]["canarySource"] as? String == "2")
        #expect((history[0]["updateUser"] as? [String: String])?["email"] == "tester@example.com" && history[0]["updateTime"] != nil)
        #expect(history[1]["canary"] as? Bool == true && history[1]["updateType"] as? String == "INCREMENTAL_UPDATE")
        #expect(history[2]["canary"] == nil)
        // Publishing goes on as before.
        #expect(try server.admin("PUT", Self.path, headers: [("If-Match", "etag-424242-3")], body: Self.template("next")).status == 200)
    }

    @Test func abortAndItsHistory() throws {
        _ = try put("canary", query: "?canaryPercent=100")
        #expect(try fetch("anyone")["entries"] as? [String: String] == ["k": "canary"])
        let aborted = try post("abort", ifMatch: "etag-424242-2")
        #expect(aborted.status == 200 && aborted.header("ETag") == "etag-424242-3")
        #expect(try fetch("anyone")["entries"] as? [String: String] == ["k": "stable"])
        let version = try #require(try aborted.json()["version"] as? [String: Any])
        #expect(version["updateType"] as? String == "CANARY_ABORT" && version["rollbackSource"] as? String == "1")
        #expect(version["canarySource"] as? String == "2" && version["description"] as? String == "Abort canary version 2: back to version 1")
    }

    @Test func adoptionAndMetricsSplitStableAndCanary() throws {
        _ = try put("canary", query: "?canaryPercent=100")
        _ = try fetch("a")
        _ = try fetch("b")
        let adoption = try server.admin("GET", Self.path + ":adoption").json()
        #expect((adoption["canary"] as? [String: Any])?["versionNumber"] as? String == "2")
        #expect(((adoption["canary"] as? [String: Any])?["recentFetches"] as? NSNumber)?.intValue == 2)
        #expect(((adoption["canary"] as? [String: Any])?["percent"] as? NSNumber)?.doubleValue == 100)
        #expect((adoption["stable"] as? [String: Any])?["versionNumber"] as? String == "1")
        let metrics = try server.admin("GET", "/metrics").text
        #expect(metrics.contains("rcs_canary_fetches_total{worker=\"0\"} 2\n"), "\(metrics)")
    }

    /// A scheduled promotion happens by itself at its time, and tells a stream that is not in
    /// the canary (it names no instance).
    @Test func aScheduledPromotionHappensByItselfAtItsTime() throws {
        let started = try put("canary", query: "?canaryPercent=5&promoteAfterSeconds=60")
        #expect(started.status == 200)
        let promoteTime = try server.admin("GET", Self.path + ":canary").json()["promoteTime"] as? String
        #expect(promoteTime.flatMap(Timestamp.init(rfc3339:))?.date == clock.now.addingTimeInterval(60), "\(promoteTime ?? "none")")
        let stream = try server.client()
        try stream.send(TestServer.streamRequest(lastKnown: "1"))
        #expect(try stream.readHead().status == 200)
        clock.advance(by: 59.75)
        server.runDueJobs()
        #expect(try server.admin("GET", Self.path + ":canary").status == 200, "not promoted before its time")
        clock.advance(by: 0.25)
        server.runDueJobs()
        #expect(try server.admin("GET", Self.path + ":canary").status == 404)
        let message = String(decoding: try #require(try stream.readChunk()), as: UTF8.self)
        #expect(message == "{\"latestTemplateVersionNumber\": \"3\"}\n")
        let history = try #require(try server.admin("GET", Self.path + ":listVersions").json()["versions"] as? [[String: Any]])
        #expect(history.first?["updateType"] as? String == "CANARY_PROMOTION")
    }
}
