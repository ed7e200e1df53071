import CLinuxIO
import ConfigServer
import Foundation
import Testing

/// Many held clients at once, and a client that stops reading among them.
@Suite(.timeLimit(.minutes(1))) struct RealtimeFanOutTests {
    static func invalidation(_ version: Int) -> [UInt8] {
        Array("{\"latestTemplateVersionNumber\": \"\(version)\"}\n".utf8)
    }

    @Test func fiveThousandHeldClientsAllHearOfOnePublish() throws {
        // The clients and the server share this process, two descriptors per client: 5,000
        // where the hard limit allows (here and in CI it is 20,000), fewer on a machine that
        // holds fewer open files.
        let count = min(5_000, (rcs_raise_nofile_limit() - 512) / 2)
        try #require(count >= 1_000, "too few open files for a meaningful fan-out")
        let server = try TestServer()
        let version = try server.publish(Templates.single("a"))
        let clients = try (0..<count).map { _ in
            let client = try server.client()
            try client.send(TestServer.streamRequest(lastKnown: "\(version)"))
            return client
        }
        // A stream is held before its head is written, so all are held once all heads are read.
        let opened = try clients.filter { try $0.readHead().status == 200 }.count
        #expect(opened == count)
        #expect(try server.heldGauge() == count)
        let next = try server.publish(Templates.single("b"))
        let heard = try clients.filter { try $0.readChunk() == Self.invalidation(next) }.count
        #expect(heard == count)
    }

    @Test func aClientThatStopsReadingDoesNotDelayTheOthers() throws {
        let server = try TestServer()
        let version = try server.publish(Templates.single("a"))
        let stalled = try TestClient(port: server.port, tinyReceiveBuffer: true)
        try stalled.send(TestServer.streamRequest(lastKnown: "\(version)"))
        #expect(try stalled.readHead().status == 200)
        let reader = try server.client()
        try reader.send(TestServer.streamRequest(lastKnown: "\(version)"))
        #expect(try reader.readHead().status == 200)
        // The stalled client's window closes after a few kilobytes (300 messages are 13 KB);
        // from then on its messages wait in the kernel, and the reader still hears every
        // publish at once (a server that waited for the stalled socket would time it out).
        for round in 0..<300 {
            let next = try server.publish(Templates.single("v\(round)"))
            #expect(try reader.readChunk() == Self.invalidation(next))
        }
        #expect(try server.heldGauge() == 2)
    }
}
