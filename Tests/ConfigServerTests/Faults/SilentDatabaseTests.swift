import Foundation
import PostgresStore
import PostgresTestSupport
import TestSupport
import Testing

/// Two nodes on one PostgreSQL, each through a link of its own that a test makes silent
/// (packets dropped, nothing reset): a node cut off so keeps answering fetches from memory,
/// refuses publishes with 503 within 2 s, never applies a refused publish later, and catches
/// up by itself once the link heals.
@Suite(.serialized, .timeLimit(.minutes(2))) final class SilentDatabaseTests {
    let temporary: TemporaryDirectory
    let database: TestDatabase
    let links: [FaultyLink]
    var nodes: [DaemonProcess] = []

    init() throws {
        temporary = try TemporaryDirectory("rcs-silent")
        database = try TestDatabase()
        let serverPort = try #require(URLComponents(string: database.url)?.port)
        links = try (0..<2).map { try FaultyLink(upstreamPort: serverPort, seed: UInt64($0)) }
        nodes = try links.enumerated().map { index, link in
            try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node\(index)").path, workers: 2,
                              extraEnvironment: ["RCS_DATABASE_URL": try link.url(replacingPortOf: database.url)])
        }
        // Every worker must hold the first version when a link goes silent: a publish waits for
        // a node's workers only once its listener is there.
        for node in nodes { try node.awaitListener() }
    }

    deinit { links.forEach { $0.stop() } }

    @Test func aNodeCutOffKeepsFetchingRefusesPublishesAndNeverAppliesThemLater() throws {
        #expect(NodeCalls.publish(nodes[0].port, "one").status == 200)
        links[0].set(.silent)
        for attempt in 0..<5 {
            let fetched = NodeCalls.fetch(nodes[0].port, limit: 5, instance: "i\(attempt)")
            #expect(fetched.status == 200 && fetched.value == "one", "fetch \(attempt) on the cut-off node: \(fetched)")
            #expect(fetched.seconds < 2, "fetch \(attempt) took \(fetched.seconds) s")
        }
        let refused = NodeCalls.publish(nodes[0].port, "refused", limit: 5)
        #expect(refused.status == 503, "a publish on the cut-off node: \(refused)")
        #expect(refused.seconds < 2, "the refusal took \(refused.seconds) s")
        #expect(NodeCalls.publish(nodes[1].port, "two").status == 200)

        // A stream held on the cut-off node is told of the newest version once the node read it.
        let stream = try DaemonTests.openStream(port: nodes[0].port, lastKnown: 1)
        links[0].set(.healthy)
        let healed = Date()
        try MultiNodeTests.expectVersion(2, on: stream)
        #expect(Date().timeIntervalSince(healed) < 5, "the healed node serves the newest version within 5 s")
        #expect(NodeCalls.fetch(nodes[0].port, limit: 2).value == "two")
        // Queued after anything the node may still hold for the store: once this is answered,
        // a late run of the refused publish would have committed.
        let port = nodes[0].port
        let after = try #require(NodeCalls.publishUntilAcknowledged({ port }, "three", within: 4))
        let values = try NodeCalls.versions(nodes[1].port).map(\.value)
        #expect(!values.contains("refused"), "the refused publish was applied after all: \(values)")
        #expect(values == [after.value, "two", "one"], "\(values)")
    }

    @Test func aCommitWhoseAnswerIsLostIsAnsweredOutcomeUnknownAndNeverRetried() throws {
        #expect(NodeCalls.publish(nodes[0].port, "one").status == 200)
        links[0].silence(whenClientSends: "COMMIT")
        let unknown = NodeCalls.publish(nodes[0].port, "unknown", limit: 5)
        #expect(unknown.outcomeUnknown, "\(unknown)")
        #expect(unknown.seconds < 2, "took \(unknown.seconds) s")
        // The COMMIT arrives once the link heals: the version is then there, whole, once.
        links[0].set(.healthy)
        let port = nodes[0].port
        let after = try #require(NodeCalls.publishUntilAcknowledged({ port }, "after", within: 4))
        let values = try NodeCalls.versions(nodes[1].port).map(\.value)
        #expect(values.filter { $0 == "unknown" }.count <= 1, "never applied twice: \(values)")
        #expect(values.first == after.value && values.last == "one", "\(values)")
    }
}
