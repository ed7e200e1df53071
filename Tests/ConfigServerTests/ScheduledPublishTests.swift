import ConfigCore
import Foundation
import PostgresTestSupport
import TestSupport
import Testing

/// Publishes scheduled for a time: applied at that time and not before, across a restart, once
/// on three nodes; a schedule whose template moved is suspended; a cancelled one never applies.
/// In process the server's clock is a `ManualClock` the tests move; only the three nodes, each a
/// process of its own, run on the wall clock.
@Suite(.serialized, .timeLimit(.minutes(3))) final class ScheduledPublishTests {
    static let requests = "/v1/projects/demo/namespaces/firebase/changeRequests"
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))

    static func schedule(_ server: TestServer, _ value: String, at time: Date) throws -> String {
        let body = #"{"template":\#(Templates.single(value)),"description":"at \#(Timestamp(time).description)","#
            + #""scheduleTime":"\#(Timestamp(time).description)"}"#
        let made = try server.admin("POST", requests, body: body)
        #expect(made.status == 200, "\(made.text)")
        let json = try made.json()
        #expect(json["status"] as? String == "scheduled")
        return try #require(json["id"] as? String)
    }

    static func request(_ server: TestServer, _ id: String) throws -> [String: Any] {
        try server.admin("GET", requests + "/\(id)").json()
    }

    static func activeVersion(_ server: TestServer) throws -> (number: Int, value: String, updateTime: Date?) {
        try TemplateSummary(server.admin("GET", "/v1/projects/demo/remoteConfig").json()).version
    }

    static func scheduleEntries(_ server: TestServer) throws -> [[String: Any]] {
        try server.admin("GET", "/v1/auditLog?action=schedule.apply").json()["entries"] as? [[String: Any]] ?? []
    }

    @Test func aScheduledPublishIsAppliedAtItsTimeAndNotBefore() throws {
        let server = try TestServer(clock: clock)
        try server.publish(Templates.single("v1"))
        let time = clock.now.addingTimeInterval(90)
        let id = try Self.schedule(server, "at-nine", at: time)
        server.runDueJobs()
        clock.advance(by: 89.75)
        server.runDueJobs()
        #expect(try Self.activeVersion(server).value == "v1", "not before its time")
        #expect(try Self.request(server, id)["status"] as? String == "scheduled")
        clock.advance(by: 0.25)
        server.runDueJobs()
        #expect(try Self.request(server, id)["status"] as? String == "applied")
        let active = try Self.activeVersion(server)
        #expect(active.number == 2 && active.value == "at-nine" && active.updateTime == time, "applied at its time: \(active)")
        let entries = try Self.scheduleEntries(server)
        #expect(entries.count == 1 && entries.first?["outcome"] as? String == "ok", "\(entries)")
        // Its origin is one the served document declares (answers are checked against it).
        let document = try server.admin("GET", "/openapi.json").json()
        let origins = OpenAPITests.member(document, "components", "schemas", "AuditEntry", "properties", "origin", "enum") as? [String]
        #expect(entries.first?["origin"] as? String == "SCHEDULE" && origins?.contains("SCHEDULE") == true, "\(origins ?? [])")
    }

    @Test func aScheduleWhoseTimePassedWhileTheServerWasDownIsAppliedWhenItIsBack() throws {
        let directory = try TemporaryDirectory("rcs-schedule")
        var server: TestServer? = try TestServer(directory: directory, clock: clock)
        try server?.publish(Templates.single("v1"))
        let id = try Self.schedule(try #require(server), "after-restart", at: clock.now.addingTimeInterval(60))
        server = nil
        clock.advance(by: 3_600)
        let restarted = try TestServer(directory: directory, clock: clock)
        restarted.runDueJobs()
        #expect(try Self.request(restarted, id)["status"] as? String == "applied")
        #expect(try Self.activeVersion(restarted).value == "after-restart")
    }

    @Test func aScheduleWhoseTemplateMovedIsSuspendedAndACancelledOneNeverApplies() throws {
        let server = try TestServer(clock: clock)
        try server.publish(Templates.single("v1"))
        let time = clock.now.addingTimeInterval(60)
        let moved = try Self.schedule(server, "stale", at: time)
        let cancelled = try Self.schedule(server, "never", at: time)
        #expect(try server.admin("POST", Self.requests + "/\(cancelled):cancel").status == 200)
        try server.publish(Templates.single("meanwhile"))
        clock.advance(by: 60)
        server.runDueJobs()
        let outcome = try Self.request(server, moved)
        #expect(outcome["status"] as? String == "conflicted" && (outcome["conflictVersion"] as? NSNumber)?.intValue == 2,
                "\(outcome)")
        #expect(outcome["diffAgainstActive"] != nil && outcome["scheduleTime"] == nil)
        #expect(try Self.request(server, cancelled)["status"] as? String == "cancelled")
        #expect(try Self.activeVersion(server).value == "meanwhile")
        let entries = try Self.scheduleEntries(server)
        #expect(entries.count == 1 && (entries.first?["outcome"] as? String)?.hasPrefix("conflicted") == true, "\(entries)")
    }

    /// Each node's leader finds the request due at about the same time; the store lets one
    /// apply it. The `schedule.applied` event is sent by the worker that applied it, once its
    /// audit entry is written (the others look for deliveries only hourly here).
    @Test func threeNodesApplyAScheduleOnce() throws {
        let temporary = try TemporaryDirectory("rcs-schedule")
        let database = try TestDatabase()
        let config = temporary.url.appendingPathComponent("nodes.json").path
        try Data("""
            {"adminTokens": [{"name": "quick-start", "token": "dev-admin-token"}],
             "projects": [{"id": "example-project", "number": "123456789012", "apiKeys": ["example-api-key"]}],
             "webhooks": {"allowPrivateAddresses": true, "pollIntervalSeconds": 3600}}
            """.utf8).write(to: URL(fileURLWithPath: config))
        let nodes = try (1...3).map { index in
            try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node\(index)").path, workers: 2, config: config,
                              extraEnvironment: ["RCS_DATABASE_URL": database.url])
        }
        let receiver = try WebhookReceiver()
        let hook = try DaemonTests.admin(nodes[0].port, "POST", "/v1/projects/example-project/webhooks",
                                         body: #"{"url":"\#(receiver.url)","events":["schedule.applied"]}"#)
        #expect(hook.status == 200, "\(hook.text)")
        #expect(try MultiNodeTests.publish(nodes[0].port, "v1").status == 200)
        // Soon: the nodes run on the wall clock.
        let time = Date().addingTimeInterval(0.5)
        let requests = "/v1/projects/example-project/namespaces/firebase/changeRequests"
        let made = try DaemonTests.admin(nodes[1].port, "POST", requests, body: #"{"template":\#(Templates.single("everywhere")),"#
            + #""scheduleTime":"\#(Timestamp(time).description)"}"#)
        #expect(made.status == 200, "\(made.text)")
        let applied = try #require(try receiver.requests(atLeast: 1).first)
        #expect(applied.json["type"] as? String == "schedule.applied" && applied.json["versionNumber"] as? String == "2")
        for node in nodes {
            let active = try TemplateSummary(DaemonTests.admin(node.port, "GET", "/v1/projects/example-project/remoteConfig").json())
            #expect(active.version.number == 2 && active.version.value == "everywhere", "node \(node.port): \(active)")
        }
        let entries = try DaemonTests.admin(nodes[2].port, "GET", "/v1/auditLog?action=schedule.apply").json()["entries"]
            as? [[String: Any]] ?? []
        #expect(entries.count == 1 && entries.first?["outcome"] as? String == "ok", "\(entries)")
        #expect(receiver.attemptsPerID().count == 1, "one application, one event")
    }
}

/// The active version of a template answer: its number, the value of its `key` parameter and
/// its update time.
struct TemplateSummary: CustomStringConvertible {
    let version: (number: Int, value: String, updateTime: Date?)

    init(_ template: [String: Any]) {
        let version = template["version"] as? [String: Any]
        let parameters = template["parameters"] as? [String: Any]
        let value = ((parameters?["key"] as? [String: Any])?["defaultValue"] as? [String: Any])?["value"] as? String ?? ""
        self.version = (Int(version?["versionNumber"] as? String ?? "0") ?? 0, value,
                        (version?["updateTime"] as? String).flatMap { Timestamp(rfc3339: $0)?.date })
    }

    var description: String { "\(version)" }
}
