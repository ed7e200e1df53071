import Foundation
import Glibc
import Synchronization
import Testing

/// The daemon as users run it: a child process, killed and restarted for real.
@Suite(.serialized, .timeLimit(.minutes(2))) final class DaemonTests {
    let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("rcs-daemon-\(UUID().uuidString)").path

    deinit { try? FileManager.default.removeItem(atPath: dataDir) }

    static func admin(_ port: Int, _ method: String, _ target: String, headers: [(String, String)] = [], body: String = "") throws -> TestResponse {
        let client = try TestClient(port: port)
        try client.send(TestClient.format(method, target, headers: [("Authorization", "Bearer dev-admin-token")] + headers, body: Array(body.utf8)))
        return try client.readResponse()
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

    @Test func workersShareThePortAndEveryHeldClientHearsOfAPublish() throws {
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 3)
        let first = try Self.admin(daemon.port, "PUT", "/v1/projects/example-project/remoteConfig", headers: [("If-Match", "*")],
                              body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"1\"}}}}")
        #expect(first.status == 200)
        let streams = try (0..<12).map { _ in
            let client = try TestClient(port: daemon.port)
            try client.send(TestClient.format("POST", "/v1/projects/123456789012/namespaces/firebase:streamFetchInvalidations",
                                              headers: [("X-Goog-Api-Key", "example-api-key")],
                                              body: Array("{\"lastKnownVersionNumber\":\"1\"}".utf8)))
            #expect(try client.readHead().status == 200)
            return client
        }
        let second = try Self.admin(daemon.port, "PUT", "/v1/projects/example-project/remoteConfig", headers: [("If-Match", "*")],
                               body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"2\"}}}}")
        #expect(second.status == 200)
        for stream in streams {
            let chunk = try #require(try stream.readChunk())
            #expect(String(decoding: chunk, as: UTF8.self) == "{\"latestTemplateVersionNumber\": \"2\"}\n")
        }
        daemon.kill(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test func aSecondServerOnTheSamePortRefusesToStart() throws {
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 1)
        let second = Process()
        second.executableURL = DaemonProcess.executable
        second.arguments = ["--port", "\(daemon.port)", "--data-dir", dataDir + "-second", "--config", "config/remote-config.json"]
        let errors = Pipe()
        second.standardError = errors
        second.standardOutput = FileHandle.nullDevice
        try second.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        second.waitUntilExit()
        #expect(second.terminationStatus != 0)
        #expect(text.contains("already in use"), "\(text)")
        #expect(try Self.admin(daemon.port, "GET", "/healthz").status == 200)
    }
}
