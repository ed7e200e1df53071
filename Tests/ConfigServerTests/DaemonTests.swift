import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// The daemon as users run it: a child process, killed and restarted for real.
@Suite(.serialized, .timeLimit(.minutes(2))) final class DaemonTests {
    let temporary: TemporaryDirectory
    var dataDir: String { temporary.url.appendingPathComponent("data").path }

    init() throws {
        temporary = try TemporaryDirectory("rcs-daemon")
    }

    static func admin(_ port: Int, _ method: String, _ target: String, headers: [(String, String)] = [], body: String = "") throws -> TestResponse {
        let client = try TestClient(port: port)
        try client.send(TestClient.format(method, target, headers: [("Authorization", "Bearer dev-admin-token")] + headers, body: Array(body.utf8)))
        return try client.readResponse()
    }

    /// A held real-time stream of the example project, its head read.
    static func openStream(port: Int, lastKnown: Int) throws -> TestClient {
        let client = try TestClient(port: port)
        try client.send(TestClient.format("POST", "/v1/projects/123456789012/namespaces/firebase:streamFetchInvalidations",
                                          headers: [("X-Goog-Api-Key", "example-api-key")],
                                          body: Array("{\"lastKnownVersionNumber\":\"\(lastKnown)\"}".utf8)))
        #expect(try client.readHead().status == 200)
        return client
    }

    @Test func killDashNineLosesNoAcknowledgedPublish() throws {
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 1)
        let port = daemon.port
        let acknowledged = Mutex<[Int: String]>([:])
        let publisher = Thread {
            for index in 0..<10_000 {
                let value = "value-\(index)"
                guard let response = try? DaemonTests.admin(port, "PUT", "/v1/projects/example-project/remoteConfig",
                                                      headers: [("If-Match", "*")],
                                                      body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"\(value)\"}}}}"),
                      response.status == 200,
                      let version = Int(response.header("ETag")?.split(separator: "-").last ?? "") else { return }
                acknowledged.withLock { $0[version] = value }
            }
        }
        publisher.start()
        // Kill as soon as a few publishes were acknowledged, while more are in flight.
        while acknowledged.withLock({ $0.count }) < 25 { sched_yield() }
        daemon.kill(SIGKILL)
        _ = daemon.waitForExit()
        while publisher.isExecuting { sched_yield() }

        let restarted = try DaemonProcess(dataDir: dataDir, workers: 1)
        let acked = acknowledged.withLock { $0 }
        let list = try Self.admin(restarted.port, "GET", "/v1/projects/example-project/remoteConfig:listVersions?pageSize=300")
        let versions = try #require(try list.json()["versions"] as? [[String: Any]])
        let numbers = versions.compactMap { ($0["versionNumber"] as? String).flatMap(Int.init) }.sorted()
        #expect(numbers == Array(1...(numbers.last ?? 0)), "versions are gap-free")
        #expect((numbers.last ?? 0) >= (acked.keys.max() ?? 0), "every acknowledged version survived")
        for (version, value) in acked.sorted(by: { $0.key < $1.key }).suffix(5) {
            let stored = try Self.admin(restarted.port, "GET", "/v1/projects/example-project/remoteConfig?versionNumber=\(version)")
            #expect(stored.text.contains(value))
        }
    }

    /// The web SDK sends its API key as `?key=`: the access log shows the request, never the key.
    @Test func theAccessLogNeverShowsAnAPIKey() throws {
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 1)
        let client = try TestClient(port: daemon.port)
        try client.send(TestClient.format("POST", "/v1/projects/123456789012/namespaces/firebase:fetch?key=example-api-key",
                                          body: Array("{\"appInstanceId\":\"i\",\"appId\":\"1:123456789012:web:ab\"}".utf8)))
        #expect(try client.readResponse().status == 200)
        let log = try daemon.log(containing: "firebase:fetch?key=REDACTED 200")
        #expect(!log.contains("example-api-key"))
    }

    @Test func workersShareThePortAndEveryHeldClientHearsOfAPublish() throws {
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 3)
        let first = try Self.admin(daemon.port, "PUT", "/v1/projects/example-project/remoteConfig", headers: [("If-Match", "*")],
                              body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"1\"}}}}")
        #expect(first.status == 200)
        let streams = try (0..<12).map { _ in try DaemonTests.openStream(port: daemon.port, lastKnown: 1) }
        let second = try Self.admin(daemon.port, "PUT", "/v1/projects/example-project/remoteConfig", headers: [("If-Match", "*")],
                               body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"2\"}}}}")
        #expect(second.status == 200)
        for stream in streams {
            let chunk = try #require(try stream.readChunk())
            #expect(String(decoding: chunk, as: UTF8.self) == "{\"latestTemplateVersionNumber\": \"2\"}\n")
        }
        // SIGTERM: every held client is told to come back later, then its stream ends cleanly,
        // and the daemon exits without waiting out its 10 s grace period.
        let terminated = Date()
        daemon.kill(SIGTERM)
        for stream in streams {
            let goodbye = String(decoding: try #require(try stream.readChunk()), as: UTF8.self)
            #expect(goodbye.hasPrefix("{\"latestTemplateVersionNumber\": \"2\", \"retryIntervalSeconds\": "))
            #expect(try stream.readChunk() == nil)
            #expect(stream.isClosedByServer())
        }
        #expect(daemon.waitForExit() == 0)
        #expect(Date().timeIntervalSince(terminated) < 5)
    }

    /// Publishers on separate connections land on different workers (SO_REUSEPORT); every
    /// acknowledged publish is a distinct version and the versions have no gap.
    @Test func concurrentPublishesThroughSeveralWorkersGetGapFreeVersions() throws {
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 3)
        let port = daemon.port
        let acknowledged = Mutex<[Int]>([])
        let publishers = (0..<6).map { publisher in
            Thread {
                for index in 0..<15 {
                    guard let response = try? DaemonTests.admin(port, "PUT", "/v1/projects/example-project/remoteConfig",
                                                                headers: [("If-Match", "*")],
                                                                body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"\(publisher)-\(index)\"}}}}"),
                          response.status == 200,
                          let version = Int(response.header("ETag")?.split(separator: "-").last ?? "") else { continue }
                    acknowledged.withLock { $0.append(version) }
                }
            }
        }
        publishers.forEach { $0.start() }
        while publishers.contains(where: { !$0.isFinished }) { sched_yield() }
        let versions = acknowledged.withLock { $0 }.sorted()
        #expect(versions == Array(1...90), "every publish acknowledged once, with its own version")
        let list = try Self.admin(daemon.port, "GET", "/v1/projects/example-project/remoteConfig:listVersions?pageSize=300")
        let listed = try #require(try list.json()["versions"] as? [[String: Any]]).compactMap { ($0["versionNumber"] as? String).flatMap(Int.init) }
        #expect(listed.sorted() == Array(1...90))
    }

    @Test func aSecondServerOnTheSamePortRefusesToStart() throws {
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 1)
        let second = try DaemonProcess.runUntilExit(
            arguments: ["--port", "\(daemon.port)", "--data-dir", dataDir + "-second", "--config", "config/remote-config.json"])
        #expect(second.status != 0)
        #expect(second.log.contains("already in use"), "\(second.log)")
        #expect(try Self.admin(daemon.port, "GET", "/healthz").status == 200)
    }
}

/// `/metrics` and adoption speak for every worker, whichever one takes the request.
@Suite(.serialized, .timeLimit(.minutes(2))) final class WorkerGroupTests {
    let temporary: TemporaryDirectory
    var dataDir: String { temporary.url.appendingPathComponent("data").path }

    init() throws {
        temporary = try TemporaryDirectory("rcs-group")
    }

    /// Sum of one family's samples over workers, and the workers that reported it.
    static func sum(_ family: String, in text: String) -> (total: Int, workers: Set<String>) {
        var total = 0
        var workers = Set<String>()
        for line in text.split(separator: "\n") where line.hasPrefix(family + "{") {
            total += Int(line.split(separator: " ").last ?? "") ?? 0
            if let range = line.range(of: "worker=\"") {
                workers.insert(String(line[range.upperBound...].prefix { $0 != "\"" }))
            }
        }
        return (total, workers)
    }

    @Test func everyScrapeAndAdoptionAnswerCoversAllWorkers() throws {
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 3)
        let published = try DaemonTests.admin(daemon.port, "PUT", "/v1/projects/example-project/remoteConfig",
                                              headers: [("If-Match", "*")], body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"1\"}}}}")
        #expect(published.status == 200)
        // New connections spread over the workers (SO_REUSEPORT); the totals must not depend on how.
        let streams = try (0..<12).map { _ in try DaemonTests.openStream(port: daemon.port, lastKnown: 1) }
        for index in 0..<20 {
            let client = try TestClient(port: daemon.port)
            try client.send(TestClient.format("POST", "/v1/projects/123456789012/namespaces/firebase:fetch",
                                              headers: [("X-Goog-Api-Key", "example-api-key")],
                                              body: Array("{\"appInstanceId\":\"i\(index)\",\"appId\":\"1:1:android:1\"}".utf8)))
            #expect(try client.readResponse().status == 200)
        }
        for _ in 0..<6 {
            let text = try DaemonTests.admin(daemon.port, "GET", "/metrics").text
            #expect(text.contains("\nrcs_workers_reporting 3\n"), "\(text)")
            let held = Self.sum("rcs_realtime_held_connections", in: text)
            #expect(held.total == 12)
            #expect(held.workers == ["0", "1", "2"])
            #expect(Self.sum("rcs_fetches_total", in: text).total == 20)
            #expect(text.components(separatedBy: "# TYPE rcs_fetches_total counter").count == 2, "one header per family")

            let adoption = try DaemonTests.admin(daemon.port, "GET", "/v1/projects/example-project/remoteConfig:adoption").text
            #expect(adoption.contains("\"workers\":3,\"workersReporting\":3"), "\(adoption)")
            #expect(adoption.contains("{\"versionNumber\":\"1\",\"heldClients\":12,\"recentFetches\":20,\"fetchedClients\":20}"), "\(adoption)")
        }
        withExtendedLifetime(streams) {}
        daemon.kill(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test func theCapIsSharedByAllWorkers() throws {
        // The shipped config with a cap of 9 held streams for the whole group.
        var config = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "config/remote-config.json"))) as! [String: Any]
        var realtime = config["realtime"] as! [String: Any]
        realtime["maxConnections"] = 9
        config["realtime"] = realtime
        let configPath = temporary.url.appendingPathComponent("config.json").path
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configPath))
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 3, config: configPath)
        let first = try DaemonTests.admin(daemon.port, "PUT", "/v1/projects/example-project/remoteConfig",
                                          headers: [("If-Match", "*")], body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"1\"}}}}")
        #expect(first.status == 200)
        // 30 clients spread over 3 workers: 9 held in all, 21 told to come back later.
        let streams = try (0..<30).map { _ in try DaemonTests.openStream(port: daemon.port, lastKnown: 1) }
        let held = Self.sum("rcs_realtime_held_connections", in: try DaemonTests.admin(daemon.port, "GET", "/metrics").text)
        #expect(held.total == 9)
        let second = try DaemonTests.admin(daemon.port, "PUT", "/v1/projects/example-project/remoteConfig",
                                           headers: [("If-Match", "*")], body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"2\"}}}}")
        #expect(second.status == 200)
        let messages = try streams.map { String(decoding: try #require(try $0.readChunk()), as: UTF8.self) }
        #expect(messages.filter { $0 == "{\"latestTemplateVersionNumber\": \"2\"}\n" }.count == 9)
        #expect(messages.filter { $0.hasPrefix("{\"latestTemplateVersionNumber\": \"1\", \"retryIntervalSeconds\": ") }.count == 21)
    }
}
