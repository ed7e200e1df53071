import Foundation
import Glibc
import PostgresStore
import PostgresTestSupport
import TestSupport
import Testing

/// OFREP's event streams held by every worker of a daemon, and by every node on one PostgreSQL
/// database: a publish through any of them reaches each.
@Suite(.serialized, .timeLimit(.minutes(3))) final class OFREPDaemonTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory("rcs-ofrep")
    }

    static func publish(_ port: Int, _ value: String) throws -> Int {
        let response = try DaemonTests.admin(port, "PUT", "/v1/projects/example-project/remoteConfig", headers: [("If-Match", "*")],
                                             body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"\(value)\"}}}}")
        #expect(response.status == 200)
        return Int(response.header("ETag")?.split(separator: "-").last ?? "") ?? 0
    }

    /// An event stream on a new connection (so any worker may take it), knowing `version`.
    static func openEventStream(port: Int, version: Int) throws -> TestClient {
        let client = try TestClient(port: port)
        try client.send(TestClient.format("GET", "/ofrep/v1/sse?key=example-api-key&targetingKey=t&version=\(version)"))
        #expect(try client.readHead().status == 200)
        return client
    }

    /// Reads `stream` until it tells of `version`.
    static func expectRefetch(_ version: Int, on stream: TestClient, sourceLocation: SourceLocation = #_sourceLocation) throws {
        while true {
            let chunk = try #require(try stream.readChunk(), "the stream ended before version \(version)", sourceLocation: sourceLocation)
            let text = String(decoding: chunk, as: UTF8.self)
            if text.hasPrefix("id:\(version)\ndata:{\"type\":\"refetchEvaluation\",\"etag\":\"\(version)\"") { return }
        }
    }

    /// A bulk evaluation for `targetingKey` on a new connection.
    static func evaluate(port: Int, query: String = "", etag: String? = nil, targetingKey: String = "t") throws -> TestResponse {
        let client = try TestClient(port: port)
        try client.send(TestClient.format("POST", "/ofrep/v1/evaluate/flags" + query,
                                          headers: [("X-API-Key", "example-api-key")] + (etag.map { [("If-None-Match", $0)] } ?? []),
                                          body: Array("{\"context\":{\"targetingKey\":\"\(targetingKey)\"}}".utf8)))
        return try client.readResponse()
    }

    /// The worker that answered: its process's request-id prefix (random per process).
    static func worker(_ response: TestResponse) throws -> String {
        String(try #require(response.header("X-Request-Id")).prefix { $0 != "-" })
    }

    /// Polling clients, each on new connections, arm the repeated-poll 304 on every worker of
    /// `ports` (one poller's body is kept by a worker once it polls there with its ETag); a
    /// publish through `publishPort` is acknowledged; then every poll with an old ETag, on
    /// whichever worker and node it lands, gets the new version, never the old one's 304.
    static func expectRepeatedPollsSeeAPublish(ports: [Int], workers: Int, publishPort: Int) throws {
        let first = try publish(publishPort, "one")
        // Poller → (its ETag, the workers that answered it 304: its body is kept there).
        var pollers: [String: (tag: String, armed: Set<String>)] = [:]
        var armed = Set<String>()
        // Each poller makes at most 9 requests (the throttle allows 30); bounded by 64 pollers.
        while armed.count < workers, pollers.count < 64 {
            let key = "poller-\(pollers.count)"
            let port = ports[pollers.count % ports.count]
            let answer = try evaluate(port: port, targetingKey: key)
            #expect(try Self.answer(answer) == ("one", "\(first)"))
            let tag = try #require(answer.header("ETag"))
            var answeredBy = Set<String>()
            for _ in 0 ..< 8 {
                let poll = try evaluate(port: port, etag: tag, targetingKey: key)
                #expect(poll.status == 304 && poll.header("ETag") == tag)
                answeredBy.insert(try worker(poll))
            }
            pollers[key] = (tag, answeredBy)
            armed.formUnion(answeredBy)
        }
        try #require(armed.count == workers, "every worker kept a poller's body")
        let second = try publish(publishPort, "two")
        // Right after the acknowledgement, polls with the old ETag on new connections until
        // each worker has answered one it had kept (bounded).
        var checked = Set<String>()
        for _ in 0 ..< 64 where checked.count < workers {
            for (index, (key, poller)) in pollers.sorted(by: { $0.key < $1.key }).enumerated() {
                let poll = try evaluate(port: ports[index % ports.count], etag: poller.tag, targetingKey: key)
                let answeredBy = try worker(poll)
                #expect(poll.status == 200, "\(key) on worker \(answeredBy)")
                #expect(try Self.answer(poll) == ("two", "\(second)"))
                if poller.armed.contains(answeredBy) { checked.insert(answeredBy) }
            }
        }
        #expect(checked.count == workers, "each worker refused a kept 304 after the publish")
    }

    @Test func repeatedPollsOnEveryWorkerSeeAnAcknowledgedPublish() throws {
        let daemon = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("data").path, workers: 4)
        try Self.expectRepeatedPollsSeeAPublish(ports: [daemon.port], workers: 4, publishPort: daemon.port)
    }

    @Test func repeatedPollsOnEveryNodeSeeAPublishThroughAnother() throws {
        let database = try TestDatabase()
        let nodes = try (1...2).map { index in
            try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node\(index)").path, workers: 2,
                              extraEnvironment: ["RCS_DATABASE_URL": database.url])
        }
        try Self.expectRepeatedPollsSeeAPublish(ports: nodes.map(\.port), workers: 4, publishPort: nodes[0].port)
    }

    /// A bulk answer's value of `k` and its version.
    static func answer(_ response: TestResponse) throws -> (value: String?, version: String?) {
        let json = try response.json()
        let flags = json["flags"] as? [[String: Any]] ?? []
        let value = flags.first { $0["key"] as? String == "k" }?["value"] as? String
        return (value, (json["metadata"] as? [String: Any])?["version"] as? String)
    }

    /// Workers holding at least one stream, by the metrics of every worker.
    static func workersHolding(port: Int) throws -> Set<String> {
        let text = try DaemonTests.admin(port, "GET", "/metrics").text
        var workers = Set<String>()
        for line in text.split(separator: "\n") where line.hasPrefix("rcs_realtime_held_connections{") {
            guard (Int(line.split(separator: " ").last ?? "") ?? 0) > 0, let range = line.range(of: "worker=\"") else { continue }
            workers.insert(String(line[range.upperBound...].prefix { $0 != "\"" }))
        }
        return workers
    }

    @Test func everyWorkerTellsItsEventStreamsOfAPublish() throws {
        let daemon = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("data").path, workers: 4)
        let first = try Self.publish(daemon.port, "one")
        // New connections until each of the four workers holds a stream (bounded).
        var streams: [TestClient] = []
        while streams.count < 64, try Self.workersHolding(port: daemon.port).count < 4 {
            streams.append(try Self.openEventStream(port: daemon.port, version: first))
        }
        #expect(try Self.workersHolding(port: daemon.port) == ["0", "1", "2", "3"])
        let second = try Self.publish(daemon.port, "two")
        for stream in streams { try Self.expectRefetch(second, on: stream) }
        daemon.kill(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test func aPublishThroughOneNodeReachesTheEventStreamsOfAnother() throws {
        let database = try TestDatabase()
        let nodes = try (1...2).map { index in
            try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node\(index)").path, workers: 2,
                              extraEnvironment: ["RCS_DATABASE_URL": database.url])
        }
        let first = try Self.publish(nodes[0].port, "one")
        let streams = try nodes.flatMap { node in try (0..<4).map { _ in try Self.openEventStream(port: node.port, version: first) } }
        let second = try Self.publish(nodes[1].port, "two")
        for stream in streams { try Self.expectRefetch(second, on: stream) }
        // A stream opened on the other node with the old version is told at once.
        try Self.expectRefetch(second, on: try Self.openEventStream(port: nodes[0].port, version: first))
    }

    /// One node's event stream tells a client of a version before another node's listener has
    /// heard of its commit (here node 2 never hears: its link to PostgreSQL holds everything
    /// sent to its listener's connection, and it polls the store hourly), and the client's
    /// re-fetch lands on node 2: naming the version (`flagConfigEtag`), it gets that version,
    /// not a 304 for the one before.
    @Test func aRefetchOnANodeThatHasNotHeardOfTheVersionGetsIt() throws {
        let database = try TestDatabase()
        let serverPort = try #require(URLComponents(string: database.url)?.port)
        let link = try FaultyLink(upstreamPort: serverPort, onlyConnectionsSending: PostgresConfigDatabase.listenerNamePrefix)
        // Node 2 reaches the database through the link: it must last as long as the test.
        defer { link.stop() }
        // Node 2 polls the store hourly and lets its listener's connection stay quiet an hour; a
        // publish waits a quarter of a second for node 2's acknowledgement, which never comes.
        var config = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "config/remote-config.json"))) as! [String: Any]
        config["store"] = ["pollIntervalSeconds": 3600, "heartbeatSeconds": 3600, "acknowledgementSeconds": 0.25]
        let configPath = temporary.url.appendingPathComponent("config.json").path
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configPath))
        let telling = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node1").path, workers: 2, config: configPath,
                                        extraEnvironment: ["RCS_DATABASE_URL": database.url])
        let first = try Self.publish(telling.port, "one")
        let lagging = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node2").path, workers: 1, config: configPath,
                                        extraEnvironment: ["RCS_DATABASE_URL": try link.url(replacingPortOf: database.url)])
        // Silenced only once its listener caught up and acknowledged: until then the node reads
        // the store for every request (its listener is absent), and would hear of each version.
        _ = try lagging.log(containing: "caught up with the store's notifications")
        link.set(.silent)
        let polled = try Self.evaluate(port: lagging.port)
        #expect(try Self.answer(polled) == ("one", "\(first)"))
        let tag = try #require(polled.header("ETag"))
        let stream = try Self.openEventStream(port: telling.port, version: first)

        for value in ["two", "three"] {
            let version = try Self.publish(telling.port, value)
            try Self.expectRefetch(version, on: stream)
            #expect(try Self.answer(try Self.evaluate(port: lagging.port)).value != value, "node 2 has not heard of \(version)")
            // As a provider re-fetches: the event's etag and lastModified, and its last ETag.
            let refetch = try Self.evaluate(port: lagging.port, query: "?flagConfigEtag=\(version)&flagConfigLastModified=1771622898",
                                            etag: value == "two" ? tag : nil)
            try #require(refetch.status == 200)
            #expect(try Self.answer(refetch) == (value, "\(version)"))
        }
    }
}
