import Foundation
import Glibc
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
}
