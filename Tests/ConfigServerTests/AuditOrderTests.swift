import Dispatch
import Foundation
import Glibc
import TestSupport
import Testing

/// The audit log's ids and times agree: an entry appended later never carries an earlier time,
/// whichever worker or thread appended it, so an export by time window misses none.
@Suite(.serialized, .timeLimit(.minutes(2))) final class AuditOrderTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory("rcs-audit-order")
    }

    /// Allowed publishes are kept on the store queue after their commit, refusals from the
    /// loop thread: mixed on several workers, both kinds race for the next id.
    @Test func concurrentAllowedAndDeniedCallsOnSeveralWorkersAreKeptInTimeOrder() throws {
        let dataDir = temporary.url.appendingPathComponent("data").path
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 3)
        let port = daemon.port
        let principal = #"{"kind":"service","displayName":"Reader"}"#
        #expect(try DaemonTests.admin(port, "POST", "/v1/principals", body: principal).status == 200)
        #expect(try DaemonTests.admin(port, "PUT", "/v1/projects/example-project/members/svc-reader", body: #"{"role":"viewer"}"#).status == 200)
        let minted = try DaemonTests.admin(port, "POST", "/v1/tokens", body: #"{"principal":"svc-reader","name":"r"}"#)
        let readerToken = try #require(try minted.json()["token"] as? String)
        let callers = DispatchGroup()
        for caller in 0..<6 {
            callers.enter()
            Thread {
                defer { callers.leave() }
                for index in 0..<20 {
                    let allowed = (caller + index) % 2 == 0
                    let body = "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"\(caller)-\(index)\"}}}}"
                    guard let client = try? TestClient(port: port) else { continue }
                    let credentials = allowed ? "Bearer dev-admin-token" : "Bearer \(readerToken)"
                    try? client.send(TestClient.format("PUT", "/v1/projects/example-project/remoteConfig",
                                                       headers: [("Authorization", credentials), ("If-Match", "*")], body: Array(body.utf8)))
                    _ = try? client.readResponse()
                }
            }.start()
        }
        callers.wait()
        // Refusals are kept after their answer: a worker stops once it wrote what it queued.
        daemon.kill(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let restarted = try DaemonProcess(dataDir: dataDir, workers: 1)

        let listed = try DaemonTests.admin(restarted.port, "GET", "/v1/auditLog?pageSize=1000")
        let entries = try #require(try listed.json()["entries"] as? [[String: Any]])
        let ordered = entries.compactMap { entry -> (id: Int, time: String)? in
            guard let id = (entry["id"] as? String).flatMap(Int.init), let time = entry["time"] as? String else { return nil }
            return (id, time)
        }.sorted { $0.id < $1.id }
        #expect(ordered.count == entries.count && entries.count >= 120, "\(entries.count) entries")
        #expect(entries.contains { $0["outcome"] as? String == "denied" } && entries.contains { $0["outcome"] as? String == "ok" })
        let backwards = zip(ordered, ordered.dropFirst()).filter { $0.time > $1.time }
        #expect(backwards.isEmpty, "ids whose time is before the entry ahead of them: \(backwards.map { "\($0.id)→\($1.id)" })")
    }
}
