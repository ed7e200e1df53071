import ConfigClient
import ConfigServer
import Foundation
import Logging
import Testing

/// The client library against the real server on loopback.
@Suite(.timeLimit(.minutes(1))) final class ClientAgainstServerTests {
    let server: ServerInstance
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rcs-client-\(UUID().uuidString)")
    static let token = "client-test-admin"

    init() throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDir = directory.appendingPathComponent("data").path
        configuration.adminTokens = [AdminTokenDeclaration(name: "test", token: Self.token)]
        configuration.projects = [ProjectDeclaration(id: "app", number: "1001", apiKeys: ["key"])]
        configuration.http.accessLog = false
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        server = try ServerInstance(configuration: configuration, logger: logger)
    }

    deinit {
        server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    var baseURL: String { "http://127.0.0.1:\(server.port)" }

    func admin() -> AdminClient { AdminClient(baseURL: baseURL, project: "app", token: Self.token) }

    func publish(_ values: [String: String]) async throws {
        let parameters = values.mapValues { ["defaultValue": ["value": $0]] }
        let body = try JSONSerialization.data(withJSONObject: ["parameters": parameters])
        _ = try await admin().publish(body, ifMatch: "*", validateOnly: false)
    }

    func client() -> ConfigClient {
        var configuration = ClientConfiguration(
            baseURL: baseURL, project: "1001", apiKey: "key", appId: "1:1001:ios:ab", appInstanceId: "install-1",
            cacheDirectory: directory.appendingPathComponent("cache"))
        configuration.fallbackPollInterval = 3600
        return ConfigClient(configuration: configuration)
    }

    @Test func fetchActivateAndDefaults() async throws {
        try await publish(["welcome": "hello", "limit": "7"])
        let client = client()
        client.setDefaults(["welcome": "default", "offline": true])
        #expect(client.string("welcome", default: "caller") == "default")
        #expect(try await client.fetchAndActivate())
        #expect(client.string("welcome", default: "caller") == "hello")
        #expect(client.int("limit", default: 0) == 7)
        #expect(client.source(forKey: "welcome") == .remote)
        #expect(client.bool("offline", default: false))
        #expect(client.source(forKey: "offline") == .default)
        #expect(client.string("missing", default: "caller") == "caller")
    }

    @Test func fetchedValuesAreActivatedOnTheNextStart() async throws {
        try await publish(["welcome": "first"])
        let first = client()
        #expect(try await first.fetch() == .updated)
        let next = client()
        #expect(next.string("welcome", default: "none") == "first")
    }

    @Test func listenerHearsTheChangedKeysOfAPublish() async throws {
        try await publish(["welcome": "one", "same": "x"])
        let client = client()
        _ = try await client.fetchAndActivate()
        let (updates, continuation) = AsyncStream.makeStream(of: Set<String>.self)
        let registration = client.addOnConfigUpdateListener { update, _ in
            if let update { continuation.yield(update.updatedKeys) }
        }
        // Whether the publish lands before or after the server holds the stream, the client
        // learns of it: a stale stream is told at once.
        try await publish(["welcome": "two", "same": "x", "added": "y"])
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next() == ["welcome", "added"])
        registration.remove()
        try await waitForHeld(0)
    }

    /// A rollout that serves the value the instance already had still updates the key: its
    /// rollout assignment changed (as the Firebase SDKs report it).
    @Test func listenerHearsAKeyWhoseRolloutAssignmentChanged() async throws {
        func publishRollout(percent: Int) async throws {
            let template = #"{"conditions":[{"name":"all","expression":"true"}],"parameters":{"flag":{"defaultValue":{"value":"on"},"#
                + #""conditionalValues":{"all":{"rolloutValue":{"rolloutId":"flag-rollout","value":"on","percent":\#(percent)}}}},"#
                + #""other":{"defaultValue":{"value":"x"}}}}"#
            _ = try await admin().publish(Data(template.utf8), ifMatch: "*", validateOnly: false)
        }
        // install-1's bucket for flag-rollout is 3,369,567: out at 1 %, in at 100 %.
        try await publishRollout(percent: 1)
        let client = client()
        _ = try await client.fetchAndActivate()
        let (updates, continuation) = AsyncStream.makeStream(of: Set<String>.self)
        let registration = client.addOnConfigUpdateListener { update, _ in
            if let update { continuation.yield(update.updatedKeys) }
        }
        try await publishRollout(percent: 100)
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next() == ["flag"])
        #expect(client.activate())
        #expect(client.string("flag", default: "") == "on")
        registration.remove()
        try await waitForHeld(0)
    }

    /// Polls the server's held-connection gauge (bounded) until it shows `count`: the server
    /// side of a close has no event a client can await.
    func waitForHeld(_ count: Int) async throws {
        for _ in 0..<400 {
            let request = HTTPRequest(method: .get, url: "\(baseURL)/metrics", headers: ["Authorization": "Bearer \(Self.token)"])
            let metrics = String(decoding: try await CurlTransport().send(request).body, as: UTF8.self)
            if metrics.contains("rcs_realtime_held_connections{worker=\"0\"} \(count)\n") { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the server never held \(count) streams")
    }
}
