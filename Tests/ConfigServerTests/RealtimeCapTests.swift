import ConfigServer
import ServerCore
import Foundation
import Testing

/// Projects kept apart, and the caps on held streams under bursts of clients.
@Suite(.timeLimit(.minutes(1))) struct RealtimeCapTests {
    static let otherNumber = "777777"
    /// A key belongs to one project: the other project has its own.
    static let otherKey = "other-api-key"

    func server(_ adjust: @escaping (inout ServerConfiguration) -> Void = { _ in }) throws -> TestServer {
        try TestServer {
            $0.projects.append(ProjectDeclaration(id: "other", number: Self.otherNumber, apiKeys: [Self.otherKey]))
            adjust(&$0)
        }
    }

    /// Sends a stream request for each project in `projects` before reading any answer.
    func burst(_ server: TestServer, _ projects: [String], lastKnown: Int) throws -> [TestClient] {
        try projects.map { project in
            let client = try server.client()
            let key = project == Self.otherNumber ? Self.otherKey : TestServer.apiKey
            try client.send(TestServer.streamRequest(lastKnown: "\(lastKnown)", project: project, key: key))
            return client
        }
    }

    /// The held gauge once it reaches `count` (or the last reading, after a bounded wait).
    func waitForHeld(_ server: TestServer, _ count: Int) throws -> Int {
        var held = try server.heldGauge()
        for _ in 0..<500 where held < count {
            held = try server.heldGauge()
        }
        return held
    }

    /// The first message of each stream, after its head.
    func firstMessages(_ clients: [TestClient]) throws -> [String] {
        try clients.map { client in
            #expect(try client.readHead().status == 200)
            return String(decoding: try #require(try client.readChunk()), as: UTF8.self)
        }
    }

    @Test func aPublishReachesOnlyItsOwnProject() throws {
        let server = try server()
        let demo = try server.publish(Templates.single("a"))
        let other = try server.publish(Templates.single("a"), project: "other")
        let demoStream = try burst(server, ["424242"], lastKnown: demo)[0]
        let otherStream = try burst(server, [Self.otherNumber], lastKnown: other)[0]
        let newDemo = try server.publish(Templates.single("b"))
        let newOther = try server.publish(Templates.single("b"), project: "other")
        // Each stream's first message is its own project's version: the other project's
        // publish, which came first for one of them, never reached it.
        #expect(try firstMessages([demoStream, otherStream]) == [
            "{\"latestTemplateVersionNumber\": \"\(newDemo)\"}\n", "{\"latestTemplateVersionNumber\": \"\(newOther)\"}\n",
        ])
    }

    @Test func theCapHoldsUnderABurstAndStaleClientsStillHearOfTheirUpdate() throws {
        let server = try server { $0.realtime.maxConnections = 20 }
        let version = try server.publish(Templates.single("a"))
        let fresh = try burst(server, Array(repeating: "424242", count: 60), lastKnown: version)
        // The cap fills (and stays full) before the stale clients come.
        #expect(try waitForHeld(server, 20) == 20)
        let stale = try burst(server, Array(repeating: "424242", count: 10), lastKnown: version - 1)
        // A stale client over the cap still gets its version (with a retry hint) and is closed.
        let staleMessages = try firstMessages(stale)
        #expect(staleMessages.allSatisfy { $0.hasPrefix("{\"latestTemplateVersionNumber\": \"\(version)\", \"retryIntervalSeconds\": ") })
        #expect(stale.allSatisfy { $0.isClosedByServer() })
        #expect(try server.heldGauge() == 20)
        // The held fresh clients hear of the next publish; the refused ones were told when to
        // come back (the current version and a retry hint) and closed.
        let next = try server.publish(Templates.single("b"))
        let messages = try firstMessages(fresh)
        #expect(messages.filter { $0 == "{\"latestTemplateVersionNumber\": \"\(next)\"}\n" }.count == 20)
        #expect(messages.filter { $0.hasPrefix("{\"latestTemplateVersionNumber\": \"\(version)\", \"retryIntervalSeconds\": ") }.count == 40)
    }

    @Test func aProjectAtItsCapLeavesRoomForOthers() throws {
        let server = try server { $0.realtime.maxConnectionsPerProject = 3 }
        let demo = try server.publish(Templates.single("a"))
        let other = try server.publish(Templates.single("a"), project: "other")
        let demoStreams = try burst(server, Array(repeating: "424242", count: 5), lastKnown: demo)
        let otherStreams = try burst(server, Array(repeating: Self.otherNumber, count: 3), lastKnown: other)
        #expect(try waitForHeld(server, 6) == 6)
        _ = try server.publish(Templates.single("b"))
        let newOther = try server.publish(Templates.single("b"), project: "other")
        let demoMessages = try firstMessages(demoStreams)
        #expect(demoMessages.filter { $0.contains("retryIntervalSeconds") }.count == 2)
        #expect(try firstMessages(otherStreams).allSatisfy { $0 == "{\"latestTemplateVersionNumber\": \"\(newOther)\"}\n" })
    }
}
