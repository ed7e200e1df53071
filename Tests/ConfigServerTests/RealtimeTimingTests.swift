import ConfigServer
import ServerCore
import Foundation
import Testing

/// Heartbeats, stream lifetimes and paced fan-out, each on a server with short settings.
@Suite(.timeLimit(.minutes(1))) struct RealtimeTimingTests {
    func open(_ server: TestServer, lastKnown: Int) throws -> TestClient {
        let client = try server.client()
        try client.send(TestServer.streamRequest(lastKnown: "\(lastKnown)"))
        #expect(try client.readHead().status == 200)
        return client
    }

    func message(_ client: TestClient) throws -> String {
        String(decoding: try #require(try client.readChunk()), as: UTF8.self)
    }

    @Test func heldStreamsHearTheCurrentVersionAsAHeartbeat() throws {
        let server = try TestServer { $0.realtime.heartbeatSeconds = 1 }
        let version = try server.publish(Templates.single("a"))
        let client = try open(server, lastKnown: version)
        // Nothing was published: the heartbeat repeats the version the client has, which no
        // SDK takes as a reason to fetch, and keeps proxies from timing the stream out.
        #expect(try message(client) == "{\"latestTemplateVersionNumber\": \"\(version)\"}\n")
        #expect(try message(client) == "{\"latestTemplateVersionNumber\": \"\(version)\"}\n")
    }

    @Test func streamsEndCleanlyAtTheEndOfTheirLifetime() throws {
        let server = try TestServer {
            $0.realtime.maxLifetimeSeconds = 1
            $0.realtime.lifetimeJitterSeconds = 0
            $0.realtime.heartbeatSeconds = 60
        }
        let version = try server.publish(Templates.single("a"))
        let client = try open(server, lastKnown: version)
        // The last chunk, then the close: a clean end the SDKs answer by reconnecting.
        #expect(try client.readChunk() == nil)
        #expect(client.isClosedByServer())
    }

    @Test func pacedFanOutSendsAtTheConfiguredRate() throws {
        let server = try TestServer { $0.realtime.notificationsPerSecond = 1 }
        let version = try server.publish(Templates.single("a"))
        let clients = try (0..<3).map { _ in try open(server, lastKnown: version) }
        let next = try server.publish(Templates.single("b"))
        // One message a second: the three arrive over at least two ticks, and none is lost.
        var arrivals: [ContinuousClock.Instant] = []
        for client in clients {
            #expect(try message(client) == "{\"latestTemplateVersionNumber\": \"\(next)\"}\n")
            arrivals.append(.now)
        }
        #expect(arrivals.max()! - arrivals.min()! >= .milliseconds(900))
    }
}
