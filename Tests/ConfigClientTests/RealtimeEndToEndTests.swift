import TestSupport
import Foundation
import Synchronization
import Testing
@testable import ConfigClient

/// Fetch and stream endpoints on a loopback server; the test drives the streams by hand.
private final class StubConfigServer: Sendable {
    final class Template: Sendable {
        let current = Mutex<(version: Int64, entries: [String: String])>((1, ["a": "1"]))
    }

    final class Counter: Sendable {
        let count = Mutex(0)
    }

    let template = Template()
    /// Streams the clients opened so far.
    let streamsOpened = Counter()
    let streams: AsyncStream<(LoopbackServer.Request, LoopbackConnection)>
    let fetches: AsyncStream<LoopbackServer.Request>
    let server: LoopbackServer

    init(refuseStreams: Bool = false) throws {
        let (streams, streamContinuation) = AsyncStream.makeStream(of: (LoopbackServer.Request, LoopbackConnection).self)
        let (fetches, fetchContinuation) = AsyncStream.makeStream(of: LoopbackServer.Request.self)
        self.streams = streams
        self.fetches = fetches
        let template = template
        let streamsOpened = streamsOpened
        server = try LoopbackServer { request, connection in
            if request.path.hasSuffix(":fetch") {
                let (version, entries) = template.current.withLock { $0 }
                let body = try! JSONSerialization.data(withJSONObject: ["entries": entries, "state": "UPDATE", "templateVersion": String(version)])
                connection.respond(status: 200, headers: ["ETag": "etag-\(version)"], body: String(decoding: body, as: UTF8.self))
                fetchContinuation.yield(request)
            } else if refuseStreams {
                connection.respond(status: 403, body: #"[{"error": {"code": 403, "message": "real-time off for this key", "status": "PERMISSION_DENIED"}}]"#)
            } else {
                streamsOpened.count.withLock { $0 += 1 }
                connection.beginChunks()
                streamContinuation.yield((request, connection))
            }
        }
    }

    func publish(_ version: Int64, _ entries: [String: String]) {
        template.current.withLock { $0 = (version, entries) }
    }

    func client(_ adjust: (inout ClientConfiguration) -> Void = { _ in }) -> ConfigClient {
        var configuration = testConfiguration(baseURL: server.baseURL)
        adjust(&configuration)
        return ConfigClient(configuration: configuration)
    }

    deinit { server.stop() }
}

private func json(_ body: Data) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
}

/// Resolves when the peer closes `connection`.
private func peerClosed(_ connection: LoopbackConnection) async {
    await withCheckedContinuation { continuation in
        Thread {
            connection.waitForPeerClose()
            connection.close()
            continuation.resume()
        }.start()
    }
}

// Three minutes, not one: async tests share the test process's two cooperative threads with the
// blocking daemon and fault tests, and wait their turn when those hold both.
@Suite(.timeLimit(.minutes(3)))
struct RealtimeEndToEndTests {
    typealias Event = (update: ConfigUpdate?, error: ConfigUpdateError?)

    private func listen(_ client: ConfigClient) -> (ConfigUpdateListenerRegistration, AsyncStream<Event>) {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let registration = client.addOnConfigUpdateListener { update, error in
            continuation.yield((update, error as? ConfigUpdateError))
        }
        return (registration, events)
    }

    @Test func announcedVersionIsFetchedAndChangedKeysReported() async throws {
        let stub = try StubConfigServer()
        var fetches = stub.fetches.makeAsyncIterator()
        var streams = stub.streams.makeAsyncIterator()
        let client = stub.client()
        client.setDefaults(["b": "default"])
        try await client.fetchAndActivate()
        _ = await fetches.next()

        let (registration, events) = listen(client)
        var updates = events.makeAsyncIterator()
        let (request, connection) = try #require(await streams.next())
        #expect(json(request.body)["lastKnownVersionNumber"] as? String == "1")
        #expect(request.headers["x-goog-api-key"] == "key-1")

        // A new version with the same values: fetched, but nobody is told.
        stub.publish(2, ["a": "1"])
        connection.chunk("{\"latestTemplateVersionNumber\": \"2\"}\n")
        let quietFetch = try #require(await fetches.next())
        #expect(quietFetch.headers["x-firebase-rc-fetch-type"] == "REALTIME/1")

        stub.publish(3, ["a": "2", "b": "remote"])
        connection.chunk(#"{"latestTemplateVers"#)
        connection.chunk("ionNumber\": \"3\"}\n")
        let event = try #require(await updates.next())
        #expect(event.update?.updatedKeys == ["a", "b"])
        #expect(event.error == nil)
        #expect(client.fetchedTemplateVersion == 3)
        #expect(client.string("a", default: "") == "1")
        client.activate()
        #expect(client.value(forKey: "b") == ConfigValue(stringValue: "remote", source: .remote))

        registration.remove()
        await peerClosed(connection)
    }

    @Test func listenersShareOneStreamUntilTheLastIsRemoved() async throws {
        let stub = try StubConfigServer()
        var streams = stub.streams.makeAsyncIterator()
        let client = stub.client()
        let (first, _) = listen(client)
        let (second, events) = listen(client)
        var updates = events.makeAsyncIterator()
        let (_, connection) = try #require(await streams.next())

        first.remove()
        stub.publish(2, ["a": "2"])
        connection.chunk("{\"latestTemplateVersionNumber\": \"2\"}\n")
        #expect(try #require(await updates.next()).update?.updatedKeys == ["a"])

        second.remove()
        second.remove()
        await peerClosed(connection)
        #expect(stub.streamsOpened.count.withLock { $0 } == 1, "two listeners share one stream")
    }

    @Test func cleanEndAfterAMessageReconnectsWithTheNewVersion() async throws {
        let stub = try StubConfigServer()
        var streams = stub.streams.makeAsyncIterator()
        let client = stub.client()
        let (registration, events) = listen(client)
        var updates = events.makeAsyncIterator()
        let (_, connection) = try #require(await streams.next())
        stub.publish(5, ["a": "5"])
        connection.chunk("{\"latestTemplateVersionNumber\": \"5\"}\n")
        _ = await updates.next()
        connection.endChunks()

        let (request, again) = try #require(await streams.next())
        #expect(json(request.body)["lastKnownVersionNumber"] as? String == "5")
        registration.remove()
        await peerClosed(again)
    }

    @Test func refusedStreamIsReportedWithTheServersMessage() async throws {
        let stub = try StubConfigServer(refuseStreams: true)
        let client = stub.client()
        let (registration, events) = listen(client)
        var updates = events.makeAsyncIterator()
        let event = try #require(await updates.next())
        #expect(event.update == nil)
        #expect(event.error == .streamRefused(ServerError(httpStatus: 403, status: "PERMISSION_DENIED", message: "real-time off for this key")))
        registration.remove()
    }

    @Test func refusedStreamFallsBackToPeriodicFetches() async throws {
        let stub = try StubConfigServer(refuseStreams: true)
        stub.publish(2, ["a": "polled"])
        let client = stub.client {
            $0.fallbackPollInterval = 0.01
            $0.reconnectBackoff = Backoff(initial: 60, maximum: 60)
        }
        let (registration, events) = listen(client)
        var updates = events.makeAsyncIterator()
        #expect(try #require(await updates.next()).error != nil)
        let polled = try #require(await updates.next())
        #expect(polled.update?.updatedKeys == ["a"])
        #expect(client.fetchedTemplateVersion == 2)
        registration.remove()
    }
}
