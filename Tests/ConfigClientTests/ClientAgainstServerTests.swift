import ConfigClient
import Foundation
import Testing

/// The client library against the real server on loopback.
// Three minutes, not one: async tests share the test process's two cooperative threads with the
// blocking daemon and fault tests, and wait their turn when those hold both.
@Suite(.timeLimit(.minutes(3))) final class ClientAgainstServerTests {
    let server: ClientTestServer

    init() throws {
        server = try ClientTestServer()
    }

    func publish(_ values: [String: String]) async throws {
        try await server.publish(values)
    }

    func client() -> ConfigClient {
        var configuration = ClientConfiguration(
            baseURL: server.baseURL, project: "1001", apiKey: "key", appId: "1:1001:ios:ab", appInstanceId: "install-1",
            cacheDirectory: server.cacheDirectory)
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
        try await server.waitForHeld(0)
    }

    /// A rollout that serves the value the instance already had still updates the key: its
    /// rollout assignment changed (as the Firebase SDKs report it).
    @Test func listenerHearsAKeyWhoseRolloutAssignmentChanged() async throws {
        func publishRollout(percent: Int) async throws {
            let template = #"{"conditions":[{"name":"all","expression":"true"}],"parameters":{"flag":{"defaultValue":{"value":"on"},"#
                + #""conditionalValues":{"all":{"rolloutValue":{"rolloutId":"flag-rollout","value":"on","percent":\#(percent)}}}},"#
                + #""other":{"defaultValue":{"value":"x"}}}}"#
            _ = try await server.admin().publish(Data(template.utf8), ifMatch: "*", validateOnly: false)
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
        try await server.waitForHeld(0)
    }
}
