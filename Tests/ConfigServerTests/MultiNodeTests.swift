import ConfigStore
import Foundation
import Glibc
import PostgresStore
import PostgresTestSupport
import Synchronization
import TestSupport
import Testing

/// Several nodes (real daemons, two workers each) on one PostgreSQL database: a publish through
/// any node reaches the held streams of every node, ETags pick one winner across nodes, and a
/// database outage or a cut notification connection loses nothing.
@Suite(.serialized, .timeLimit(.minutes(3))) final class MultiNodeTests {
    let temporary: TemporaryDirectory
    let database: TestDatabase
    /// Proxies between a node and the database, kept as long as the nodes.
    var proxies: [DelayingProxy] = []

    init() throws {
        temporary = try TemporaryDirectory("rcs-nodes")
        database = try TestDatabase()
    }

    /// A node on `url` (the test database unless given), with its own data directory.
    func node(_ index: Int, url: String? = nil, workers: Int = 2, environment: [String: String] = [:]) throws -> DaemonProcess {
        try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node\(index)").path, workers: workers,
                          extraEnvironment: ["RCS_DATABASE_URL": url ?? database.url].merging(environment) { $1 })
    }

    static func publish(_ port: Int, _ value: String, ifMatch: String = "*") throws -> TestResponse {
        try DaemonTests.admin(port, "PUT", "/v1/projects/example-project/remoteConfig", headers: [("If-Match", ifMatch)],
                              body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"\(value)\"}}}}")
    }

    static func fetch(_ port: Int) throws -> TestResponse {
        let client = try TestClient(port: port)
        try client.send(TestClient.format("POST", "/v1/projects/123456789012/namespaces/firebase:fetch",
                                          headers: [("X-Goog-Api-Key", "example-api-key")],
                                          body: Array("{\"appInstanceId\":\"i1\",\"appId\":\"1:123456789012:android:ab\"}".utf8)))
        return try client.readResponse()
    }

    /// A fetch through `port` answers with `k` = `value`.
    static func expectFetch(_ port: Int, _ value: String, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = try fetch(port).text
        #expect(text.contains("\"k\":\"\(value)\""), "\(comment?.rawValue ?? "") \(text)", sourceLocation: sourceLocation)
    }

    /// Reads `stream` until it names `version` (streams may first hear an older one).
    static func expectVersion(_ version: Int, on stream: TestClient, sourceLocation: SourceLocation = #_sourceLocation) throws {
        while true {
            let chunk = try #require(try stream.readChunk(), "the stream ended before version \(version)", sourceLocation: sourceLocation)
            let text = String(decoding: chunk, as: UTF8.self)
            if text.contains("\"latestTemplateVersionNumber\": \"\(version)\"") { return }
        }
    }

    @Test func aPublishThroughOneNodeReachesTheStreamsOfEveryNode() throws {
        let nodes = try (1...3).map { try node($0) }
        #expect(try Self.publish(nodes[0].port, "one").status == 200)
        // Two streams per node, so that both workers of a node are likely to hold one.
        let streams = try nodes.flatMap { node in try (0..<2).map { _ in try DaemonTests.openStream(port: node.port, lastKnown: 1) } }
        #expect(try Self.publish(nodes[0].port, "two").status == 200)
        for stream in streams { try Self.expectVersion(2, on: stream) }
        // Every node now serves it, on new connections.
        for node in nodes { try Self.expectFetch(node.port, "two") }
    }

    /// Read-your-writes across nodes: right after each acknowledged publish, new connections to
    /// every node (any worker) fetch that version, never the one it replaced, even when the
    /// nodes hear of it 200 ms late (a slow network: each node's listener reaches PostgreSQL
    /// through a proxy that holds the server's bytes back): the publish waits for them.
    @Test func afterAnAcknowledgedPublishNoNodeAnswersWithTheOlderVersion() throws {
        let serverPort = try #require(URLComponents(string: database.url)?.port)
        let nodes = try (1...3).map { index in
            let proxy = try DelayingProxy(upstreamPort: serverPort, delay: .milliseconds(200),
                                          onlyConnectionsSending: PostgresConfigDatabase.listenerNamePrefix)
            proxies.append(proxy)
            return try node(index, url: try proxy.url(replacingPortOf: database.url))
        }
        var stale: [String] = []
        for round in 1...20 {
            #expect(try Self.publish(nodes[round % 3].port, "v\(round)").status == 200)
            for (index, node) in nodes.enumerated() {
                let text = try Self.fetch(node.port).text
                if !text.contains("\"k\":\"v\(round)\"") { stale.append("round \(round), node \(index + 1): \(text)") }
            }
        }
        #expect(stale.isEmpty, "\(stale.count) stale answers, first: \(stale.prefix(3))")
    }

    @Test func twoNodesPublishingWithOneETagGiveOneWinner() throws {
        let nodes = try (1...2).map { try node($0) }
        #expect(try Self.publish(nodes[0].port, "base").status == 200)
        for round in 0..<20 {
            let statuses = Mutex<[Int]>([])
            let current = try #require(try DaemonTests.admin(nodes[round % 2].port, "GET", "/v1/projects/example-project/remoteConfig").header("ETag"))
            let threads = nodes.map(\.port).enumerated().map { index, port in
                Thread {
                    let status = (try? Self.publish(port, "r\(round)-n\(index)", ifMatch: current).status) ?? 0
                    statuses.withLock { $0.append(status) }
                }
            }
            threads.forEach { $0.start() }
            while threads.contains(where: { !$0.isFinished }) { sched_yield() }
            #expect(statuses.withLock { $0.sorted() } == [200, 400], "round \(round): one winner, one VERSION_MISMATCH")
        }
        let list = try DaemonTests.admin(nodes[1].port, "GET", "/v1/projects/example-project/remoteConfig:listVersions?pageSize=300")
        let numbers = try #require(try list.json()["versions"] as? [[String: Any]]).compactMap { ($0["versionNumber"] as? String).flatMap(Int.init) }
        #expect(numbers.sorted() == Array(1...21))
    }

    @Test func aDatabaseOutageKeepsFetchesAndStreamsAndThePublishAfterReachesEveryStream() throws {
        // A cluster of its own, to stop and start.
        let cluster = try PostgresTestServer.startCluster()
        defer { _ = try? PostgresTestServer.stopCluster(directory: cluster.directory) }
        let outageDatabase = try TestDatabase(serverURL: cluster.url)
        let nodes = try (1...2).map { try node($0, url: outageDatabase.url) }
        #expect(try Self.publish(nodes[0].port, "before").status == 200)
        let streams = try nodes.map { try DaemonTests.openStream(port: $0.port, lastKnown: 1) }

        try PostgresTestServer.haltCluster(directory: cluster.directory)
        for node in nodes {
            try Self.expectFetch(node.port, "before", "fetches are served while the database is down")
            let refused = try Self.publish(node.port, "during")
            #expect(refused.status == 503 && refused.text.contains("\"UNAVAILABLE\""))
        }
        try PostgresTestServer.resumeCluster(directory: cluster.directory)
        // Publishes work again once every node's listener is back (each write retries on a new
        // connection): each says so a second time.
        for node in nodes { _ = try node.log(containing: "listening to the store's notifications", times: 2, within: 60) }
        let published = try Self.publish(nodes[1].port, "after")
        #expect(published.status == 200, "\(published.text)")
        #expect(published.header("ETag")?.hasSuffix("-2") == true, "the version acknowledged before the outage survived it")
        for stream in streams { try Self.expectVersion(2, on: stream) }
        for node in nodes { try Self.expectFetch(node.port, "after") }
    }

    @Test func aVersionPublishedWhileANodesListenerWasCutIsDeliveredWhenItReconnects() throws {
        // Node 2 connects as its own role, so that it alone can be kept out of the database.
        let admin = try PostgresConnection(database.url)
        defer { admin.close() }
        let first = try node(1)  // creates the schema
        try admin.execute("CREATE ROLE rcs_node2 LOGIN")
        try admin.execute("GRANT ALL ON SCHEMA public TO rcs_node2")
        try admin.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO rcs_node2")
        let nodes = [first, try node(2, url: try TestDatabase.url(database.url, user: "rcs_node2"))]
        #expect(try Self.publish(nodes[0].port, "one").status == 200)
        let stream = try DaemonTests.openStream(port: nodes[1].port, lastKnown: 1)

        try admin.execute("ALTER ROLE rcs_node2 NOLOGIN")
        try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'rcs_node2'")
        #expect(try Self.publish(nodes[0].port, "two").status == 200)
        try admin.execute("ALTER ROLE rcs_node2 LOGIN")
        try Self.expectVersion(2, on: stream)
        try Self.expectFetch(nodes[1].port, "two")
    }

    @Test func killDashNineOfANodeDuringPublishesLosesNothingAcknowledged() throws {
        let nodes = try (1...2).map { try node($0) }
        let port = nodes[0].port
        let acknowledged = Mutex<[Int: String]>([:])
        let publisher = Thread {
            for index in 0..<10_000 {
                guard let response = try? Self.publish(port, "value-\(index)"), response.status == 200,
                      let version = Int(response.header("ETag")?.split(separator: "-").last ?? "") else { return }
                acknowledged.withLock { $0[version] = "value-\(index)" }
            }
        }
        publisher.start()
        while acknowledged.withLock({ $0.count }) < 25 { sched_yield() }
        nodes[0].kill(SIGKILL)
        _ = nodes[0].waitForExit()
        while publisher.isExecuting { sched_yield() }

        let acked = acknowledged.withLock { $0 }
        let list = try DaemonTests.admin(nodes[1].port, "GET", "/v1/projects/example-project/remoteConfig:listVersions?pageSize=300")
        let numbers = try #require(try list.json()["versions"] as? [[String: Any]]).compactMap { ($0["versionNumber"] as? String).flatMap(Int.init) }.sorted()
        #expect(numbers == Array(1...(numbers.last ?? 0)), "versions are gap-free")
        #expect((numbers.last ?? 0) >= (acked.keys.max() ?? 0), "every acknowledged version survived")
        let newest = try #require(acked.keys.max())
        let version = try DaemonTests.admin(nodes[1].port, "GET", "/v1/projects/example-project/remoteConfig?versionNumber=\(newest)")
        #expect(version.text.contains(acked[newest] ?? "?"))
    }
}
