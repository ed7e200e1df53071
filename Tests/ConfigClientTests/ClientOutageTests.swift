import ConfigClient
import ConfigServer
import ServerCore
import Foundation
import Testing

/// What the client does when the real server is at its stream cap or goes away, as
/// `docs/client.md` describes it.
// Three minutes, not one: async tests share the test process's two cooperative threads with the
// blocking daemon and fault tests, and wait their turn when those hold both.
@Suite(.timeLimit(.minutes(3))) struct ClientOutageTests {
    typealias Event = (update: ConfigUpdate?, error: ConfigUpdateError?)

    func client(_ server: ClientTestServer, installation: String, _ adjust: (inout ClientConfiguration) -> Void = { _ in }) -> ConfigClient {
        var configuration = ClientConfiguration(
            baseURL: server.baseURL, project: "1001", apiKey: "key", appId: "1:1001:ios:ab", appInstanceId: installation,
            cacheDirectory: server.cacheDirectory.appendingPathComponent(installation))
        configuration.fallbackPollInterval = 3600
        adjust(&configuration)
        return ConfigClient(configuration: configuration)
    }

    func listen(_ client: ConfigClient) -> (ConfigUpdateListenerRegistration, AsyncStream<Event>.Iterator) {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let registration = client.addOnConfigUpdateListener { update, error in
            continuation.yield((update, error as? ConfigUpdateError))
        }
        return (registration, events.makeAsyncIterator())
    }

    @Test func atTheCapAClientHearsNoErrorAndStillLearnsOfAPublish() async throws {
        let server = try ClientTestServer {
            $0.realtime.maxConnections = 1
            $0.realtime.retryIntervalSeconds = 1
        }
        try await server.publish(["a": "1"])
        let holder = client(server, installation: "holder")
        try await holder.fetchAndActivate()
        let (held, _) = listen(holder)
        try await server.waitForHeld(1)

        let late = client(server, installation: "late")
        try await late.fetchAndActivate()
        var (registration, events) = listen(late)
        try await server.waitForMetric("rcs_realtime_refusals_total", "at least 1") { $0 >= 1 }

        // The late client is refused each time it comes back; the publish reaches it through
        // the answer to its next attempt (the server's stale-client exception).
        try await server.publish(["a": "2"])
        let event = try #require(await events.next())
        #expect(event.error == nil)
        #expect(event.update?.updatedKeys == ["a"])
        #expect(late.fetchedTemplateVersion == 2)
        #expect(try await server.metric("rcs_realtime_stale_exceptions_total") >= 1)
        registration.remove()
        held.remove()
        try await server.waitForHeld(0)
    }

    @Test func serverGoneReadsTheCacheFetchFailsAndTheListenerHearsOnce() async throws {
        let server = try ClientTestServer { $0.realtime.retryIntervalSeconds = 1 }
        try await server.publish(["a": "1"])
        let adjust: (inout ClientConfiguration) -> Void = {
            $0.minimumFetchInterval = 0
            $0.reconnectBackoff = Backoff(initial: 0.05, maximum: 0.05, jitter: 0)
        }
        let client = client(server, installation: "app", adjust)
        try await client.fetchAndActivate()
        var (registration, events) = listen(client)
        try await server.waitForHeld(1)

        // The goodbye asks the client to come back in a second; then three refused connections.
        server.stop()
        let event = try #require(await events.next())
        guard case .streamUnavailable(let error)? = event.error else {
            Issue.record("expected streamUnavailable, got \(event)")
            return
        }
        #expect(error.kind == .connectionFailed)
        #expect(client.string("a", default: "none") == "1")
        do {
            try await client.fetch()
            Issue.record("a fetch succeeded with the server gone")
        } catch .transport(let error) {
            #expect(error.kind == .connectionFailed)
        } catch {
            Issue.record("expected a transport error, got \(error)")
        }
        registration.remove()

        let nextStart = self.client(server, installation: "app", adjust)
        #expect(nextStart.string("a", default: "none") == "1")
        #expect(nextStart.source(forKey: "a") == .remote)
    }
}
