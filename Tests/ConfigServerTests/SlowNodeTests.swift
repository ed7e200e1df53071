import Foundation
import Glibc
import PostgresTestSupport
import TestSupport
import Testing

/// A node whose workers cannot read the store in time (their connections slow, its listener's
/// not) acknowledges nothing it cannot serve: its peers' publishes go on without it, and until
/// it has caught up it says so on `/readyz`, refuses writes, and answers from memory at once.
@Suite(.serialized, .timeLimit(.minutes(2))) final class SlowNodeTests {
    let temporary: TemporaryDirectory
    let database: TestDatabase

    init() throws {
        temporary = try TemporaryDirectory("rcs-slow-node")
        database = try TestDatabase()
    }

    @Test func aNodeThatCannotReadWhatItHeardInTimeStopsAcknowledgingAndSaysSo() throws {
        guard let serverPort = URLComponents(string: database.url)?.port else { throw TestFailure("no port in \(database.url)") }
        // Only the workers' connections (`remote-config-server`), not the listener's.
        let link = try FaultyLink(upstreamPort: serverPort, onlyConnectionsSending: "remote-config-server")
        defer { link.stop() }
        let fast = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("fast").path, workers: 2,
                                     extraEnvironment: ["RCS_DATABASE_URL": database.url])
        let slow = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("slow").path, workers: 2,
                                     extraEnvironment: ["RCS_DATABASE_URL": try link.url(replacingPortOf: database.url)])
        // Both listeners present first: the publish then waits until every worker of the slow
        // node read "one", which each must serve from memory below. A listener still connecting
        // (a busy host starts slowly) is not waited for, and a worker could miss it.
        for node in [fast, slow] { try node.awaitListener() }
        #expect(try MultiNodeTests.publish(fast.port, "one").status == 200)
        try MultiNodeTests.expectFetch(slow.port, "one")

        link.set(.degraded(delay: .seconds(3), lossPercent: 0))
        let started = Date()
        let published = try MultiNodeTests.publish(fast.port, "two")
        #expect(published.status == 200)
        #expect(Date().timeIntervalSince(started) < 2.1, "a node that cannot keep up is not waited for past the cap")

        // Its workers need 6 s for a read, four times the catch-up's 1.5 s: it acknowledged
        // nothing it cannot serve, serves "one" from memory, says it is behind, takes no writes.
        for _ in 0..<4 {
            let asked = Date()
            let text = try MultiNodeTests.fetch(slow.port).text
            #expect(Date().timeIntervalSince(asked) < 1, "answered from memory at once")
            #expect(text.contains("\"k\":\"one\""), "\(text)")
            let ready = try DaemonTests.admin(slow.port, "GET", "/readyz")
            #expect(ready.status == 503 && ready.text.contains("catching up"), "a node serving v1 after v2 was acknowledged: \(ready.text)")
            let metrics = try DaemonTests.admin(slow.port, "GET", "/metrics").text
            #expect(metrics.contains("rcs_node_behind 1"), "\(metrics.split(separator: "\n").filter { $0.contains("behind") })")
            let refused = try MultiNodeTests.publish(slow.port, "three")
            #expect(refused.status == 503 && refused.text.contains("catching up"), "\(refused.status) \(refused.text)")
        }

        // Once healed, the node says it caught up, and a stream it held is told of "two".
        let stream = try DaemonTests.openStream(port: slow.port, lastKnown: 1)
        link.set(.healthy)
        _ = try slow.log(containing: "caught up with the store; acknowledging again", within: 15)
        try MultiNodeTests.expectVersion(2, on: stream)
        let ready = try DaemonTests.admin(slow.port, "GET", "/readyz")
        #expect(ready.status == 200, "\(ready.text)")
        try MultiNodeTests.expectFetch(slow.port, "two")
        #expect(try MultiNodeTests.publish(slow.port, "four").status == 200)
        try MultiNodeTests.expectFetch(fast.port, "four")
    }
}
