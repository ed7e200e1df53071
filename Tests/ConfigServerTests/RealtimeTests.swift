import ConfigServer
import ServerCore
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) final class RealtimeTests {
    let server: TestServer

    init() throws {
        server = try TestServer { $0.realtime.maxConnections = 2; $0.realtime.retryIntervalSeconds = 60 }
    }

    /// Opens a stream and returns the client after reading the response head.
    func open(lastKnown: String, project: String = "424242") throws -> (TestClient, TestResponse) {
        let client = try server.client()
        try client.send(TestServer.streamRequest(lastKnown: lastKnown, project: project))
        return (client, try client.readHead())
    }

    func message(_ client: TestClient) throws -> String {
        String(decoding: try #require(try client.readChunk()), as: UTF8.self)
    }

    @Test func staleClientIsToldAtOnce() throws {
        try server.publish(Templates.single("a"))
        try server.publish(Templates.single("b"))
        let (client, head) = try open(lastKnown: "1")
        #expect(head.status == 200)
        #expect(head.header("Transfer-Encoding") == "chunked")
        #expect(try message(client) == "{\"latestTemplateVersionNumber\": \"2\"}\n")
    }

    /// HTTP/1.0 has no chunked coding (RFC 9112 §6.1): the messages are the body, ended by
    /// the close.
    @Test func http10ClientsGetAnUnframedStream() throws {
        try server.publish(Templates.single("a"))
        let client = try server.client()
        let body = "{\"lastKnownVersionNumber\":\"1\"}"
        try client.send("POST /v1/projects/424242/namespaces/firebase:streamFetchInvalidations HTTP/1.0\r\n"
            + "X-Goog-Api-Key: \(TestServer.apiKey)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let head = try client.readHead()
        #expect(head.status == 200)
        #expect(head.header("Transfer-Encoding") == nil && head.header("Content-Length") == nil)
        #expect(head.header("Connection") == "close")
        try server.publish(Templates.single("b"))
        let message = try client.readThrough(UInt8(ascii: "\n"))
        #expect(String(decoding: message, as: UTF8.self) == "{\"latestTemplateVersionNumber\": \"2\"}\n")
    }

    @Test func heldClientsHearOfEveryPublish() throws {
        try server.publish(Templates.single("a"))
        let (first, _) = try open(lastKnown: "1")
        let (second, _) = try open(lastKnown: "1")
        try server.publish(Templates.single("b"))
        #expect(try message(first) == "{\"latestTemplateVersionNumber\": \"2\"}\n")
        #expect(try message(second) == "{\"latestTemplateVersionNumber\": \"2\"}\n")
        let rollback = try server.admin("POST", "/v1/projects/demo/remoteConfig:rollback", body: "{\"versionNumber\":1}")
        #expect(rollback.status == 200)
        #expect(try message(first) == "{\"latestTemplateVersionNumber\": \"3\"}\n")
    }

    @Test func atTheCapStaleClientsAreServedAndFreshOnesTurnedAway() throws {
        try server.publish(Templates.single("a"))
        let held = try (0..<2).map { _ in try open(lastKnown: "1") }
        #expect(held.allSatisfy { $0.1.status == 200 })
        let (stale, staleHead) = try open(lastKnown: "0")
        #expect(staleHead.status == 200)
        let staleMessage = try message(stale)
        #expect(staleMessage.hasPrefix("{\"latestTemplateVersionNumber\": \"1\", \"retryIntervalSeconds\": "))
        #expect(try stale.readChunk() == nil)
        #expect(stale.isClosedByServer())
        let (fresh, freshHead) = try open(lastKnown: "1")
        #expect(freshHead.status == 200)
        #expect(try message(fresh).contains("retryIntervalSeconds"))
        #expect(fresh.isClosedByServer())
        let metrics = try server.admin("GET", "/metrics").text
        #expect(metrics.contains("rcs_realtime_stale_exceptions_total{worker=\"0\"} 1"))
        #expect(metrics.contains("rcs_realtime_refusals_total{worker=\"0\"} 1"))
    }

    @Test func disconnectedClientsFreeTheirPlace() throws {
        let version = try server.publish(Templates.single("a"))
        for _ in 0..<3 {
            let pair = try (0..<2).map { _ in try open(lastKnown: "\(version)") }
            #expect(pair.allSatisfy { $0.1.status == 200 })
        }
        // Every pair closed when it went out of scope.
        try expectEveryPlaceFree(lastKnown: version)
    }

    @Test func clientsThatResetAtOnceLeaveNoPlaceBehind() throws {
        let version = try server.publish(Templates.single("a"))
        // Each client resets right after its request, often before the server has written the
        // response head; a stream whose head could not be written must not keep its place.
        for _ in 0..<40 {
            let client = try server.client()
            client.resetOnClose()
            try client.send(TestServer.streamRequest(lastKnown: "\(version)"))
        }
        try expectEveryPlaceFree(lastKnown: version)
    }

    /// The held gauge comes back to 0, and both places of the cap (2) take new clients that
    /// hear of the next publish.
    func expectEveryPlaceFree(lastKnown version: Int) throws {
        var held = -1
        for _ in 0..<500 where held != 0 {
            held = try server.heldGauge()
        }
        #expect(held == 0)
        let (first, _) = try open(lastKnown: "\(version)")
        let (second, _) = try open(lastKnown: "\(version)")
        let next = try server.publish(Templates.single("b"))
        #expect(try message(first) == "{\"latestTemplateVersionNumber\": \"\(next)\"}\n")
        #expect(try message(second) == "{\"latestTemplateVersionNumber\": \"\(next)\"}\n")
    }

    func currentVersion() throws -> String {
        let etag = try server.admin("GET", "/v1/projects/demo/remoteConfig").header("ETag") ?? ""
        return String(etag.split(separator: "-").last ?? "")
    }

    @Test func errorsOnTheStreamAreWrappedInAnArray() throws {
        let client = try server.client()
        try client.send(TestClient.format("POST", "/v1/projects/424242/namespaces/firebase:streamFetchInvalidations", body: Array("{}".utf8)))
        let response = try client.readResponse()
        #expect(response.status == 401)
        #expect(response.text.hasPrefix("[{\"error\":{\"code\": 401,"))  // iOS matches the text `"code": 4xx`
        #expect(response.header("Access-Control-Allow-Origin") == "*")
    }

    /// The web SDK sends the version as a JSON number; a value that is no version counts as
    /// none (spec §4.7.1), so the client hears the current version instead of a 400.
    @Test func lastKnownVersionsAreReadLeniently() throws {
        let server = try TestServer()  // room for every client at once (the suite's cap is 2)
        try server.publish(Templates.single("a"))
        for body in ["{\"lastKnownVersionNumber\":1}", "{\"lastKnownVersionNumber\":\"banana\"}", "{\"lastKnownVersionNumber\":\"-3\"}", "{}"] {
            let client = try server.client()
            try client.send(TestClient.format("POST", "/v1/projects/424242/namespaces/firebase:streamFetchInvalidations",
                                              headers: [("X-Goog-Api-Key", TestServer.apiKey)], body: Array(body.utf8)))
            let head = try client.readHead()
            #expect(head.status == 200, "\(body)")
            #expect(head.header("Access-Control-Allow-Origin") == "*")
            if body.contains(":1}") { continue }  // current: held, nothing to say yet
            #expect(try message(client) == "{\"latestTemplateVersionNumber\": \"1\"}\n", "\(body)")
        }
    }

    @Test func unknownProjectsAndNamespacesOnTheStreamAreWrappedToo() throws {
        // These were answered before the stream's error wrapping, as bare objects.
        let key = [("X-Goog-Api-Key", TestServer.apiKey)]
        for path in ["/v1/projects/nope/namespaces/firebase:streamFetchInvalidations",
                     "/v1/projects/demo/namespaces/other:streamFetchInvalidations"] {
            let response = try server.request("POST", path, headers: key, body: "{}")
            #expect(response.status == 404)
            #expect(response.text.hasPrefix("[{\"error\":{\"code\": 404,"))
        }
        let get = try server.request("GET", "/v1/projects/demo/namespaces/firebase:streamFetchInvalidations", headers: key)
        #expect(get.status == 405)
        #expect(get.text.hasPrefix("[{\"error\":"))
    }

    @Test func adoptionCountsHeldClientsByVersion() throws {
        try server.publish(Templates.single("a"))
        let (client, _) = try open(lastKnown: "1")
        _ = client
        let adoption = try server.admin("GET", "/v1/projects/demo/remoteConfig:adoption")
        #expect(adoption.text.contains("{\"versionNumber\":\"1\",\"heldClients\":1"))
    }

    func fetch(instance: String) throws {
        let response = try server.request("POST", "/v1/projects/424242/namespaces/firebase:fetch",
                                          headers: [("X-Goog-Api-Key", TestServer.apiKey)],
                                          body: "{\"appInstanceId\":\"\(instance)\",\"appId\":\"1:424242:android:1\"}")
        #expect(response.status == 200)
    }

    /// A held stream is counted on the version it was told of; the clients that fetched are
    /// counted on the version they got, each once, and keep their count when told of a newer one.
    @Test func adoptionTellsFetchedFromTold() throws {
        try server.publish(Templates.single("a"))
        let (client, _) = try open(lastKnown: "1")
        try fetch(instance: "phone")
        try fetch(instance: "phone")
        try fetch(instance: "tablet")
        try server.publish(Templates.single("b"))
        #expect(try message(client) == "{\"latestTemplateVersionNumber\": \"2\"}\n")
        var adoption = try server.admin("GET", "/v1/projects/demo/remoteConfig:adoption").text
        #expect(adoption.contains("{\"versionNumber\":\"2\",\"heldClients\":1,\"recentFetches\":0,\"fetchedClients\":0}"), "\(adoption)")
        #expect(adoption.contains("{\"versionNumber\":\"1\",\"heldClients\":0,\"recentFetches\":3,\"fetchedClients\":2}"), "\(adoption)")
        // The history has the minute of those fetches, from before anyone asked.
        #expect(adoption.contains("\"history\":[{\"minutesAgo\":"), "\(adoption)")
        #expect(adoption.contains("\"versions\":[{\"versionNumber\":\"1\",\"fetches\":3}]}"), "\(adoption)")
        try fetch(instance: "phone")
        adoption = try server.admin("GET", "/v1/projects/demo/remoteConfig:adoption").text
        #expect(adoption.contains("{\"versionNumber\":\"2\",\"heldClients\":1,\"recentFetches\":1,\"fetchedClients\":1}"), "\(adoption)")
        #expect(adoption.contains("{\"versionNumber\":\"1\",\"heldClients\":0,\"recentFetches\":3,\"fetchedClients\":1}"), "\(adoption)")
    }
}

/// A fan-out written a few streams at a time: every stream hears of the version, and a newer
/// publish while slices of the older one are still waiting tells each stream the newer version
/// last (never an older one after it).
@Suite(.timeLimit(.minutes(1))) final class FanOutSliceTests {
    let server: TestServer

    init() throws {
        server = try TestServer { $0.realtime.fanOutSliceStreams = 2 }
    }

    func versions(on client: TestClient, until last: String) throws -> [String] {
        var seen: [String] = []
        while seen.last != last {
            let chunk = String(decoding: try #require(try client.readChunk()), as: UTF8.self)
            seen.append(String(chunk.split(separator: "\"")[3]))
        }
        return seen
    }

    @Test func everyStreamHearsAndTheNewestVersionComesLast() throws {
        try server.publish(Templates.single("a"))
        var streams: [TestClient] = []
        for _ in 0..<9 {
            let client = try server.client()
            try client.send(TestServer.streamRequest(lastKnown: "1"))
            #expect(try client.readHead().status == 200)
            streams.append(client)
        }
        try server.publish(Templates.single("b"))
        try server.publish(Templates.single("c"))
        for stream in streams {
            let seen = try versions(on: stream, until: "3")
            #expect(seen == ["2", "3"] || seen == ["3"], "\(seen)")
        }
    }
}
