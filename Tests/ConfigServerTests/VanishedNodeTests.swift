import ConfigStore
import Foundation
import Glibc
import PostgresStore
import PostgresTestSupport
import TestSupport
import Testing

/// A node's host vanishes: its link to PostgreSQL goes silent, then its process dies, and no
/// reset reaches the database, which keeps the node's listener session. Publishes on the other
/// node are answered at their usual speed again within 10 s; the node, restarted on its data
/// directory, ends the session its predecessor left.
@Suite(.timeLimit(.minutes(2))) final class VanishedNodeTests {
    let temporary: TemporaryDirectory
    let database: TestDatabase

    init() throws {
        temporary = try TemporaryDirectory("rcs-vanish")
        database = try TestDatabase()
    }

    func node(_ name: String, url: String) throws -> DaemonProcess {
        let node = try DaemonProcess(dataDir: temporary.url.appendingPathComponent(name).path, workers: 1,
                                     extraEnvironment: ["RCS_DATABASE_URL": url])
        _ = try node.log(containing: "listening to the store's notifications")
        return node
    }

    /// The backends of the listener of the node whose data directory is `name`.
    func listenerSessions(_ name: String, on admin: PostgresConnection) throws -> [Int64] {
        let id = try String(contentsOf: temporary.url.appendingPathComponent("\(name)/node-id"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return try admin.query("SELECT pid FROM pg_stat_activity WHERE application_name LIKE $1",
                               [.text("\(PostgresConfigDatabase.listenerNamePrefix) \(id) %")]) { $0.int64(at: 0) }
    }

    /// How long a publish through `port` takes; it must succeed.
    func timedPublish(_ port: Int, _ value: String) throws -> Duration {
        let start = ContinuousClock.now
        let status = try MultiNodeTests.publish(port, value).status
        #expect(status == 200)
        return ContinuousClock.now - start
    }

    @Test func publishesElsewhereAreFastAgainSoonAfterANodeVanishesAndItsRestartEndsItsOldSession() throws {
        let serverPort = try #require(URLComponents(string: database.url)?.port)
        let link = try FaultyLink(upstreamPort: serverPort)
        defer { link.stop() }
        let staying = try node("staying", url: database.url)
        var vanishing: DaemonProcess? = try node("vanishing", url: try link.url(replacingPortOf: database.url))
        let admin = try database.connect()
        #expect(try timedPublish(staying.port, "before") < .seconds(1), "both nodes acknowledge")
        let oldSession = try #require(try listenerSessions("vanishing", on: admin).first)

        link.set(.silent)
        let silenced = ContinuousClock.now
        vanishing?.kill(SIGKILL)
        _ = vanishing?.waitForExit()
        vanishing = nil
        let timings = try RecoveryTimings(since: silenced, fast: .milliseconds(300), limit: .seconds(14)) { index in
            _ = try timedPublish(staying.port, "after-\(index)")
        }
        let report = timings.report("publishes on a node after another vanished")
        #expect(timings.fastInARow == 5, "\(report)")
        #expect(timings.fastAgain < .seconds(10), "\(report)")
        #expect(try listenerSessions("vanishing", on: admin) == [oldSession], "PostgreSQL still holds the vanished node's session")

        // The node comes back on its data directory (its host's link healed, here: direct).
        // It listens once its predecessor's session is gone.
        let restarted = try node("vanishing", url: database.url)
        let sessions = try listenerSessions("vanishing", on: admin)
        #expect(!sessions.contains(oldSession) && sessions.count == 1, "the restarted node ended its old session: \(sessions)")
        #expect(try timedPublish(staying.port, "back") < .seconds(1))
        try MultiNodeTests.expectFetch(restarted.port, "back")
    }
}
