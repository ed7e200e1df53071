import ConfigCore
import Foundation
import PostgresTestSupport
import TestSupport
import Testing

/// Publishes scheduled for a time: applied once, within a second of it, on one server, across a
/// restart and on three nodes; a schedule whose template moved is suspended; a cancelled one
/// never applies.
@Suite(.serialized, .timeLimit(.minutes(3))) final class ScheduledPublishTests {
    let temporary: TemporaryDirectory
    static let requests = "/v1/projects/example-project/namespaces/firebase/changeRequests"

    init() throws {
        temporary = try TemporaryDirectory("rcs-schedule")
    }

    static func publish(_ port: Int, _ value: String) throws {
        let response = try DaemonTests.admin(port, "PUT", "/v1/projects/example-project/remoteConfig", headers: [("If-Match", "*")],
                                             body: Templates.single(value))
        #expect(response.status == 200, "\(response.text)")
    }

    /// Schedules `value` through `port` for `seconds` from now; returns the request's id and time.
    static func schedule(_ port: Int, _ value: String, in seconds: Double) throws -> (id: String, time: Date) {
        let time = Date().addingTimeInterval(seconds)
        let body = #"{"template":\#(Templates.single(value)),"description":"at \#(Timestamp(time).description)","#
            + #""scheduleTime":"\#(Timestamp(time).description)"}"#
        let made = try DaemonTests.admin(port, "POST", requests, body: body)
        #expect(made.status == 200, "\(made.text)")
        let json = try made.json()
        #expect(json["status"] as? String == "scheduled")
        return (try #require(json["id"] as? String), time)
    }

    static func request(_ port: Int, _ id: String) throws -> [String: Any] {
        try DaemonTests.admin(port, "GET", requests + "/\(id)").json()
    }

    /// Waits (at most `seconds`) until the request leaves `scheduled`; returns it.
    static func awaitOutcome(_ port: Int, _ id: String, within seconds: Double = 10) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let request = try request(port, id)
            if request["status"] as? String != "scheduled" { return request }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("change request \(id) was still scheduled after \(seconds) s")
        return try request(port, id)
    }

    static func activeVersion(_ port: Int) throws -> (number: Int, value: String, updateTime: Date?) {
        let template = try DaemonTests.admin(port, "GET", "/v1/projects/example-project/remoteConfig").json()
        let version = template["version"] as? [String: Any]
        let parameters = template["parameters"] as? [String: Any]
        let value = ((parameters?["key"] as? [String: Any])?["defaultValue"] as? [String: Any])?["value"] as? String ?? ""
        return (Int(version?["versionNumber"] as? String ?? "0") ?? 0, value,
                (version?["updateTime"] as? String).flatMap { Timestamp(rfc3339: $0)?.date })
    }

    /// The schedule's audit entries, once there is one: the entry is appended just after the
    /// request's new status commits, so a reader may see the status first (bounded wait).
    static func scheduleEntries(_ port: Int) throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(5)
        while true {
            let entries = try DaemonTests.admin(port, "GET", "/v1/auditLog?action=schedule.apply").json()["entries"]
                as? [[String: Any]] ?? []
            if !entries.isEmpty || Date() > deadline { return entries }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    @Test func aScheduledPublishIsAppliedOnceWithinASecondOfItsTime() throws {
        let daemon = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("one").path, workers: 3)
        try Self.publish(daemon.port, "v1")
        let (id, time) = try Self.schedule(daemon.port, "at-nine", in: 1.5)
        #expect(try Self.activeVersion(daemon.port).value == "v1", "not before its time")
        let outcome = try Self.awaitOutcome(daemon.port, id)
        #expect(outcome["status"] as? String == "applied", "\(outcome)")
        let active = try Self.activeVersion(daemon.port)
        #expect(active.number == 2 && active.value == "at-nine")
        let late = try #require(active.updateTime).timeIntervalSince(time)
        #expect(late >= 0 && late < 1, "applied \(late) s after its time")
        let entries = try Self.scheduleEntries(daemon.port)
        #expect(entries.count == 1, "three workers, one application")
        // Its origin is one the served document declares (answers are checked against it).
        let document = try DaemonTests.admin(daemon.port, "GET", "/openapi.json").json()
        let origins = OpenAPITests.member(document, "components", "schemas", "AuditEntry", "properties", "origin", "enum") as? [String]
        #expect(entries.first?["origin"] as? String == "SCHEDULE" && origins?.contains("SCHEDULE") == true, "\(origins ?? [])")
    }

    @Test func aScheduleSurvivesARestartAndIsAppliedWhenTheServerIsBack() throws {
        let dataDir = temporary.url.appendingPathComponent("restart").path
        var daemon = try DaemonProcess(dataDir: dataDir, workers: 2)
        try Self.publish(daemon.port, "v1")
        let (id, time) = try Self.schedule(daemon.port, "after-restart", in: 1)
        daemon.kill(SIGKILL)
        _ = daemon.waitForExit()
        // Down past its time: it is applied when the server is back.
        while Date() < time.addingTimeInterval(0.2) { Thread.sleep(forTimeInterval: 0.05) }
        daemon = try DaemonProcess(dataDir: dataDir, workers: 2)
        let outcome = try Self.awaitOutcome(daemon.port, id)
        #expect(outcome["status"] as? String == "applied", "\(outcome)")
        #expect(try Self.activeVersion(daemon.port).value == "after-restart")
    }

    @Test func threeNodesApplyAScheduleOnce() throws {
        let database = try TestDatabase()
        let nodes = try (1...3).map { index in
            try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node\(index)").path, workers: 2,
                              extraEnvironment: ["RCS_DATABASE_URL": database.url])
        }
        try Self.publish(nodes[0].port, "v1")
        let (id, _) = try Self.schedule(nodes[1].port, "everywhere", in: 1.5)
        let outcome = try Self.awaitOutcome(nodes[2].port, id)
        #expect(outcome["status"] as? String == "applied", "\(outcome)")
        for node in nodes {
            let active = try Self.activeVersion(node.port)
            #expect(active.number == 2 && active.value == "everywhere", "node \(node.port): \(active)")
        }
        let entries = try Self.scheduleEntries(nodes[0].port)
        #expect(entries.count == 1 && entries.first?["outcome"] as? String == "ok", "\(entries)")
    }

    @Test func aScheduleWhoseTemplateMovedIsSuspendedAndACancelledOneNeverApplies() throws {
        let daemon = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("moved").path, workers: 2)
        try Self.publish(daemon.port, "v1")
        let (moved, _) = try Self.schedule(daemon.port, "stale", in: 1)
        let (cancelled, time) = try Self.schedule(daemon.port, "never", in: 1)
        #expect(try DaemonTests.admin(daemon.port, "POST", Self.requests + "/\(cancelled):cancel").status == 200)
        try Self.publish(daemon.port, "meanwhile")
        let outcome = try Self.awaitOutcome(daemon.port, moved)
        #expect(outcome["status"] as? String == "conflicted" && (outcome["conflictVersion"] as? NSNumber)?.intValue == 2,
                "\(outcome)")
        #expect(outcome["diffAgainstActive"] != nil)
        while Date() < time.addingTimeInterval(0.5) { Thread.sleep(forTimeInterval: 0.05) }
        #expect(try Self.request(daemon.port, cancelled)["status"] as? String == "cancelled")
        #expect(try Self.activeVersion(daemon.port).value == "meanwhile")
        let entries = try Self.scheduleEntries(daemon.port)
        #expect(entries.count == 1 && (entries.first?["outcome"] as? String)?.hasPrefix("conflicted") == true, "\(entries)")
    }
}
