import Foundation
import Glibc
import TestSupport
import Testing

/// Once a publish, a rollback or a new project is acknowledged, no worker answers from before
/// it: every request here goes on a new connection, so SO_REUSEPORT spreads them over the
/// workers, and each is sent the moment the acknowledgement arrived.
@Suite(.serialized, .timeLimit(.minutes(3))) final class ReadYourWritesTests {
    let temporary: TemporaryDirectory
    var dataDir: String { temporary.url.appendingPathComponent("data").path }

    init() throws {
        temporary = try TemporaryDirectory("rcs-ryw")
    }

    static let templatePath = "/v1/projects/example-project/remoteConfig"

    static func publish(_ port: Int, value: String) throws -> Int {
        let response = try DaemonTests.admin(port, "PUT", templatePath, headers: [("If-Match", "*")],
                                             body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"\(value)\"}}}}")
        #expect(response.status == 200, "\(response.text)")
        return try version(fromETag: response)
    }

    static func version(fromETag response: TestResponse) throws -> Int {
        try #require(Int(response.header("ETag")?.split(separator: "-").last ?? ""))
    }

    /// A fetch on a new connection: the answer's version and its value of `k`.
    static func fetch(_ port: Int, instance: String, project: String = "123456789012",
                      apiKey: String = "example-api-key") throws -> (version: Int, value: String?, status: Int) {
        let client = try TestClient(port: port)
        try client.send(TestClient.format("POST", "/v1/projects/\(project)/namespaces/firebase:fetch",
                                          headers: [("X-Goog-Api-Key", apiKey)],
                                          body: Array("{\"appInstanceId\":\"\(instance)\",\"appId\":\"1:1:ios:1\"}".utf8)))
        let response = try client.readResponse()
        guard response.status == 200 else { return (0, nil, response.status) }
        let json = try response.json()
        let version = Int(json["templateVersion"] as? String ?? "") ?? 0
        return (version, (json["entries"] as? [String: String])?["k"], 200)
    }

    @Test func everyFetchAfterAnAcknowledgedPublishSeesIt() throws {
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 4)
        var stale: [String] = []
        for round in 1...300 {
            let version = try Self.publish(daemon.port, value: "v\(round)")
            for fetch in 0..<4 {
                let answer = try Self.fetch(daemon.port, instance: "r\(round)-\(fetch)")
                if answer.version < version || answer.value != "v\(round)" {
                    stale.append("round \(round): published \(version), fetched \(answer.version) \(answer.value ?? "-")")
                }
            }
        }
        #expect(stale.count == 0, "stale answers, first: \(stale.prefix(5))")
    }

    @Test func aClientToldOfAVersionByItsStreamFetchesThatVersion() throws {
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 4)
        var current = try Self.publish(daemon.port, value: "start")
        var stale: [String] = []
        for round in 1...40 {
            // Streams on new connections, spread over the workers.
            let streams = try (0..<8).map { _ in try DaemonTests.openStream(port: daemon.port, lastKnown: current) }
            current = try Self.publish(daemon.port, value: "s\(round)")
            for (index, stream) in streams.enumerated() {
                let message = String(decoding: try #require(try stream.readChunk()), as: UTF8.self)
                #expect(message == "{\"latestTemplateVersionNumber\": \"\(current)\"}\n")
                let answer = try Self.fetch(daemon.port, instance: "s\(round)-\(index)")
                if answer.version < current || answer.value != "s\(round)" {
                    stale.append("round \(round): told \(current), fetched \(answer.version)")
                }
            }
        }
        #expect(stale.count == 0, "stale answers, first: \(stale.prefix(5))")
    }

    @Test func everyAnswerAfterAnAcknowledgedRollbackSeesIt() throws {
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 4)
        _ = try Self.publish(daemon.port, value: "first")
        var stale: [String] = []
        for round in 1...100 {
            _ = try Self.publish(daemon.port, value: "r\(round)")
            let rollback = try DaemonTests.admin(daemon.port, "POST", Self.templatePath + ":rollback",
                                                 body: "{\"versionNumber\":\"1\"}")
            #expect(rollback.status == 200, "\(rollback.text)")
            let version = try Self.version(fromETag: rollback)
            for fetch in 0..<2 {
                let answer = try Self.fetch(daemon.port, instance: "b\(round)-\(fetch)")
                if answer.version < version || answer.value != "first" {
                    stale.append("round \(round): rolled back as \(version), fetched \(answer.version) \(answer.value ?? "-")")
                }
            }
            // The management API answers from the same version on every worker.
            let template = try DaemonTests.admin(daemon.port, "GET", Self.templatePath)
            if try Self.version(fromETag: template) < version { stale.append("round \(round): GET answered an older ETag") }
        }
        #expect(stale.count == 0, "stale answers, first: \(stale.prefix(5))")
    }

    @Test func aNewProjectAndItsKeyWorkOnEveryWorkerAtOnce() throws {
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 4)
        var failures: [String] = []
        for round in 1...40 {
            let created = try DaemonTests.admin(daemon.port, "POST", "/v1/projects",
                                                body: "{\"projectId\":\"fresh-\(round)\",\"projectNumber\":\"\(900_000 + round)\"}")
            #expect(created.status == 200, "\(created.text)")
            let keyAnswer = try DaemonTests.admin(daemon.port, "POST", "/v1/projects/fresh-\(round)/apiKeys", body: "{\"name\":\"app\"}")
            let key = try #require(try keyAnswer.json()["key"] as? String)
            let published = try DaemonTests.admin(daemon.port, "PUT", "/v1/projects/fresh-\(round)/remoteConfig",
                                                  headers: [("If-Match", "*")],
                                                  body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"p\(round)\"}}}}")
            #expect(published.status == 200, "\(published.text)")
            for fetch in 0..<4 {
                let answer = try Self.fetch(daemon.port, instance: "p\(round)-\(fetch)", project: "\(900_000 + round)", apiKey: key)
                if answer.status != 200 || answer.value != "p\(round)" {
                    failures.append("round \(round): status \(answer.status), value \(answer.value ?? "-")")
                }
            }
        }
        #expect(failures.count == 0, "failures, first: \(failures.prefix(5))")
    }
}
