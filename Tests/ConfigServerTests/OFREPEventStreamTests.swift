import ConfigServer
import ServerCore
import Foundation
import Testing

/// The event stream of OFREP's bulk answer (ADR-0008), held by the real-time hub beside the
/// Firebase streams: the same cap, stale-client exception and heartbeats.
@Suite(.timeLimit(.minutes(1))) final class OFREPEventStreamTests {
    let server: TestServer

    init() throws {
        server = try TestServer { $0.realtime.maxConnections = 2; $0.realtime.retryIntervalSeconds = 60 }
    }

    /// The stream the bulk answer lists, opened as an EventSource would (a GET, no fields).
    func open(version: Int, targetingKey: String = "user-1", headers: [(String, String)] = []) throws -> (TestClient, TestResponse) {
        let client = try server.client()
        let target = "/ofrep/v1/sse?key=\(TestServer.apiKey)&targetingKey=\(targetingKey)&version=\(version)"
        try client.send(TestClient.format("GET", target, headers: [("Accept", "text/event-stream")] + headers))
        return (client, try client.readHead())
    }

    func event(_ client: TestClient) throws -> String {
        String(decoding: try #require(try client.readChunk()), as: UTF8.self)
    }

    /// When `version` was published, in seconds, as the event names it.
    func publishedSeconds(_ version: Int) throws -> Int {
        let versions = try server.admin("GET", "/v1/projects/demo/remoteConfig:listVersions").json()["versions"] as? [[String: Any]]
        let time = try #require(versions?.first { $0["versionNumber"] as? String == "\(version)" }?["updateTime"] as? String)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return Int(try #require(formatter.date(from: time)).timeIntervalSince1970)
    }

    func refetch(_ version: Int) throws -> String {
        "id:\(version)\ndata:{\"type\":\"refetchEvaluation\",\"etag\":\"\(version)\",\"lastModified\":\(try publishedSeconds(version))}\n\n"
    }

    @Test func aHeldStreamHearsOfEveryPublish() throws {
        let first = try server.publish(Templates.single("a"))
        let (stream, head) = try open(version: first)
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        #expect(head.header("Access-Control-Allow-Origin") == "*")
        let second = try server.publish(Templates.single("b"))
        #expect(try event(stream) == (try refetch(second)))
        let third = try server.publish(Templates.single("c"))
        #expect(try event(stream) == (try refetch(third)))
    }

    @Test func aStaleClientIsToldAtOnceByItsAddressOrItsLastEvent() throws {
        let first = try server.publish(Templates.single("a"))
        let second = try server.publish(Templates.single("b"))
        let (stale, _) = try open(version: first)
        #expect(try event(stale) == (try refetch(second)))
        // A reconnecting EventSource names the last event it heard: it is not told again.
        let (reconnected, _) = try open(version: first, headers: [("Last-Event-ID", "\(second)")])
        let third = try server.publish(Templates.single("c"))
        #expect(try event(reconnected) == (try refetch(third)))
    }

    @Test func theCapIsSharedWithFirebaseStreamsAndStaleClientsAreStillTold() throws {
        let version = try server.publish(Templates.single("a"))
        let firebase = try server.client()
        try firebase.send(TestServer.streamRequest(lastKnown: "\(version)"))
        #expect(try firebase.readHead().status == 200)
        let (held, _) = try open(version: version)
        var gauge = try server.heldGauge()
        for _ in 0..<500 where gauge < 2 { gauge = try server.heldGauge() }
        #expect(gauge == 2)
        let (stale, staleHead) = try open(version: version - 1)
        #expect(staleHead.status == 200)
        let told = try event(stale)
        let refetchEvent = try refetch(version)
        #expect(told.hasPrefix(refetchEvent) && told.dropFirst(refetchEvent.count).hasPrefix("retry:"))
        #expect(try stale.readChunk() == nil)
        let (fresh, _) = try open(version: version)
        let retry = try event(fresh)
        #expect(retry.hasPrefix("retry:") && retry.hasSuffix("000\n\n"))
        #expect(fresh.isClosedByServer())
        let next = try server.publish(Templates.single("b"))
        #expect(try event(held) == (try refetch(next)))
        #expect(String(decoding: try #require(try firebase.readChunk()), as: UTF8.self) == "{\"latestTemplateVersionNumber\": \"\(next)\"}\n")
    }

    /// A canary tells the streams whose targeting key is in its share, and only those.
    @Test func aCanaryStepTellsOnlyTheContextsItConcerns() throws {
        let server = try TestServer()
        let first = try server.publish(Templates.single("a"))
        let clients = 24
        let streams = try (0..<clients).map { index in
            let client = try server.client()
            try client.send(TestClient.format("GET", "/ofrep/v1/sse?key=\(TestServer.apiKey)&targetingKey=t\(index)&version=\(first)"))
            #expect(try client.readHead().status == 200)
            return client
        }
        let canary = try server.admin("PUT", "/v1/projects/demo/remoteConfig?canaryPercent=50",
                                      headers: [("If-Match", "etag-424242-\(first)")], body: Templates.single("canary"))
        #expect(canary.status == 200, "\(canary.text)")
        let members = try (0..<clients).filter { index in
            let bulk = try server.request("POST", "/ofrep/v1/evaluate/flags", headers: [("X-API-Key", TestServer.apiKey)],
                                          body: "{\"context\":{\"targetingKey\":\"t\(index)\"}}")
            return (try bulk.json()["metadata"] as? [String: Any])?["version"] as? String == "\(first + 1)"
        }
        #expect(!members.isEmpty && members.count < clients)
        // Aborting brings the others nothing new; the next publish reaches everyone.
        #expect(try server.admin("POST", "/v1/projects/demo/remoteConfig:abort", headers: [("If-Match", "etag-424242-\(first + 1)")]).status == 200)
        let next = try server.publish(Templates.single("b"))
        for index in 0..<clients {
            let told = String(decoding: try #require(try streams[index].readChunk()), as: UTF8.self)
            #expect(told.hasPrefix("id:\(members.contains(index) ? first + 1 : next)\n"), "stream \(index): \(told)")
            if members.contains(index) {
                // Back to the stable content, then the publish.
                var later = ""
                while !later.hasPrefix("id:\(next)\n") {
                    later = String(decoding: try #require(try streams[index].readChunk()), as: UTF8.self)
                }
            }
        }
    }

    @Test func anIdleStreamGetsCommentsAsHeartbeats() throws {
        let server = try TestServer { $0.realtime.heartbeatSeconds = 1 }
        let version = try server.publish(Templates.single("a"))
        let client = try server.client()
        try client.send(TestClient.format("GET", "/ofrep/v1/sse?key=\(TestServer.apiKey)&version=\(version)"))
        #expect(try client.readHead().status == 200)
        #expect(String(decoding: try #require(try client.readChunk()), as: UTF8.self) == ":\n\n")
    }

    @Test func theStreamNeedsAClientKey() throws {
        let client = try server.client()
        try client.send(TestClient.format("GET", "/ofrep/v1/sse?key=wrong&version=1"))
        let response = try client.readResponse()
        #expect(response.status == 403)
        #expect(try response.json()["errorCode"] as? String == "GENERAL")
    }
}
