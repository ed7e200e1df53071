import Foundation
import TestSupport
import Testing

/// Staged publishes through three workers and 2,000 held streams: a canary tells only its
/// share, a larger share only the instances it adds, a promotion only the others, an abort
/// only the canary's instances. Whether a stream was told nothing is read from its next
/// message, once a later publish has told everyone: no waiting for silence.
@Suite(.serialized, .timeLimit(.minutes(4))) final class CanaryRealtimeTests {
    let temporary: TemporaryDirectory
    let daemon: DaemonProcess
    let streams: [TestClient]
    static let clients = 2_000
    static let path = ReadYourWritesTests.templatePath

    init() throws {
        temporary = try TemporaryDirectory("rcs-canary")
        let dataDir = temporary.path
        // Heartbeats and stream ends later than the test, so every message read is a notice.
        let config = try String(contentsOfFile: "config/remote-config.json", encoding: .utf8)
            .replacingOccurrences(of: "\"heartbeatSeconds\": 45", with: "\"heartbeatSeconds\": 280")
            .replacingOccurrences(of: "\"lifetimeJitterSeconds\": 60", with: "\"lifetimeJitterSeconds\": 0")
        let configPath = dataDir + "/config.json"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 3, config: configPath)
        self.daemon = daemon
        let port = daemon.port
        #expect(try Self.publish(port, "stable") == 1)
        streams = try (0..<Self.clients).map { index in
            let client = try TestClient(port: port)
            try client.send(TestClient.format(
                "POST", "/v1/projects/123456789012/namespaces/firebase:streamFetchInvalidations",
                headers: [("X-Goog-Api-Key", "example-api-key")],
                body: Array("{\"lastKnownVersionNumber\":\"1\",\"appInstanceId\":\"\(Self.instance(index))\"}".utf8)))
            #expect(try client.readHead().status == 200)
            return client
        }
    }

    static func instance(_ index: Int) -> String { "canary-client-\(index)" }

    @discardableResult
    static func publish(_ port: Int, _ value: String, query: String = "", ifMatch: String = "*") throws -> Int {
        let response = try DaemonTests.admin(port, "PUT", path + query, headers: [("If-Match", ifMatch)],
                                             body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"\(value)\"}}}}")
        #expect(response.status == 200, "\(response.text)")
        return try ReadYourWritesTests.version(fromETag: response)
    }

    static func post(_ port: Int, _ method: String, ifMatch: String, body: String = "") throws -> TestResponse {
        try DaemonTests.admin(port, "POST", path + ":" + method, headers: [("If-Match", ifMatch)], body: body)
    }

    /// The next message of stream `index`: the version it announces.
    /// The counts of 2,000 instances a share may put in, five standard deviations either way
    /// (the canary's seed is new each time, so the count is binomial): a run fails by chance
    /// less than once in a million, and a share that is wrong by half still fails.
    static let tenth = 133...267
    static let fifth = 310...490

    func nextVersion(_ index: Int) throws -> Int {
        let chunk = String(decoding: try #require(try streams[index].readChunk()), as: UTF8.self)
        let digits = chunk.split(separator: "\"").dropFirst(3).first ?? ""
        return try #require(Int(digits), "\(chunk)")
    }

    /// The instances that fetch the canary version `canary` (fetches on new connections, so
    /// from every worker).
    func members(of canary: Int) throws -> Set<Int> {
        var members = Set<Int>()
        for index in 0..<Self.clients {
            let answer = try ReadYourWritesTests.fetch(daemon.port, instance: Self.instance(index))
            if answer.version == canary {
                #expect(answer.value == "canary")
                members.insert(index)
            }
        }
        return members
    }

    @Test func aCanaryGrowsThenIsPromoted() throws {
        let canary = try Self.publish(daemon.port, "canary", query: "?canaryPercent=10", ifMatch: "etag-123456789012-1")
        #expect(canary == 2)
        let tenth = try members(of: canary)
        #expect(Self.tenth.contains(tenth.count), "10 % of 2,000 instances, got \(tenth.count)")
        for index in tenth.sorted() {
            #expect(try nextVersion(index) == canary)
            // Told of the canary, the instance fetches it from any worker.
            #expect(try ReadYourWritesTests.fetch(daemon.port, instance: Self.instance(index)).version == canary)
        }

        let grow = try Self.post(daemon.port, "canary", ifMatch: "etag-123456789012-\(canary)", body: "{\"percent\": 30}")
        #expect(grow.status == 200, "\(grow.text)")
        let third = try members(of: canary)
        #expect(third.isSuperset(of: tenth))
        let added = third.subtracting(tenth)
        #expect(Self.fifth.contains(added.count), "20 % more of 2,000 instances, got \(added.count)")
        for index in added.sorted() {
            #expect(try nextVersion(index) == canary)
        }

        let promote = try Self.post(daemon.port, "promote", ifMatch: "etag-123456789012-\(canary)")
        #expect(promote.status == 200, "\(promote.text)")
        let promoted = try ReadYourWritesTests.version(fromETag: promote)
        #expect(promoted == canary + 1)
        let rest = Set(0..<Self.clients).subtracting(third)
        for index in rest.sorted() {
            // The first message these instances get: they were never told of the canary.
            #expect(try nextVersion(index) == promoted)
        }
        // The canary's instances were told nothing by the promotion (they hold its content):
        // their next message is the one of the next publish.
        let next = try Self.publish(daemon.port, "after", ifMatch: "etag-123456789012-\(promoted)")
        for index in third.sorted() {
            #expect(try nextVersion(index) == next)
        }
    }

    @Test func anAbortReturnsTheCanaryInstancesToTheStableVersion() throws {
        let canary = try Self.publish(daemon.port, "canary", query: "?canaryPercent=10", ifMatch: "etag-123456789012-1")
        let tenth = try members(of: canary)
        #expect(Self.tenth.contains(tenth.count), "10 % of 2,000 instances, got \(tenth.count)")
        for index in tenth.sorted() {
            #expect(try nextVersion(index) == canary)
        }
        let abort = try Self.post(daemon.port, "abort", ifMatch: "etag-123456789012-\(canary)")
        #expect(abort.status == 200, "\(abort.text)")
        let aborted = try ReadYourWritesTests.version(fromETag: abort)
        for index in tenth.sorted() {
            #expect(try nextVersion(index) == aborted)
            let answer = try ReadYourWritesTests.fetch(daemon.port, instance: Self.instance(index))
            #expect(answer.version == aborted && answer.value == "stable")
        }
        let next = try Self.publish(daemon.port, "after", ifMatch: "etag-123456789012-\(aborted)")
        for index in Set(0..<Self.clients).subtracting(tenth).sorted() {
            #expect(try nextVersion(index) == next, "the abort told only the canary's instances")
        }
    }
}
