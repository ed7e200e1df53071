import Foundation
import Testing
import TestSupport
import OutboundHTTP

// Three minutes, not one: async tests share the test process's two cooperative threads with the
// blocking daemon and fault tests, and wait their turn when those hold both.
@Suite(.timeLimit(.minutes(3)))
struct CurlTransportTests {
    @Test func sendDeliversMethodHeadersAndBody() async throws {
        let server = try LoopbackServer { request, connection in
            let echo = "\(request.method) \(request.path) \(request.headers["x-goog-api-key"] ?? "-") \(String(decoding: request.body, as: UTF8.self))"
            connection.respond(status: 201, headers: ["ETag": "etag-9"], body: echo)
        }
        defer { server.stop() }
        let request = HTTPRequest(method: .put, url: server.baseURL + "/v1/x", headers: ["X-Goog-Api-Key": "k"], body: Data("{}".utf8))
        let response = try await CurlTransport().send(request)
        #expect(response.status == 201)
        #expect(response.header("ETag") == "etag-9")
        #expect(String(decoding: response.body, as: UTF8.self) == "PUT /v1/x k {}")
    }

    @Test func getHasNoBody() async throws {
        let server = try LoopbackServer { request, connection in
            connection.respond(status: 200, body: "\(request.method) \(request.body.count)")
        }
        defer { server.stop() }
        let response = try await CurlTransport().send(HTTPRequest(method: .get, url: server.baseURL + "/"))
        #expect(String(decoding: response.body, as: UTF8.self) == "GET 0")
    }

    @Test func refusedConnectionIsAConnectionFailure() async throws {
        let server = try LoopbackServer { _, connection in connection.close() }
        server.stop()
        let error = await #expect(throws: TransportError.self) {
            try await CurlTransport().send(HTTPRequest(method: .get, url: server.baseURL + "/"))
        }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.message.contains(server.baseURL) == true)
    }

    @Test func aServerThatStallsTimesOutWithWhatHadArrived() async throws {
        let server = try LoopbackServer { _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nX-Kind: slow\r\n\r\nabc")
            connection.waitForPeerClose()
            connection.close()
        }
        defer { server.stop() }
        let error = await #expect(throws: TransportError.self) {
            try await CurlTransport().send(HTTPRequest(method: .get, url: server.baseURL + "/", timeout: 0.5))
        }
        #expect(error?.kind == .timedOut)
        let arrived = HTTPResponse(status: 200, headers: ["x-kind": "slow", "content-length": "100"], body: Data("abc".utf8))
        #expect(error?.partialResponse == arrived)
    }

    @Test func streamReportsHeadDataAndCleanEnd() async throws {
        let server = try LoopbackServer { _, connection in
            connection.beginChunks()
            // One line split across two chunks, then two in one chunk.
            connection.chunk("first ")
            connection.chunk("line\n")
            connection.chunk("second line\nthird line\n")
            connection.endChunks()
        }
        defer { server.stop() }
        let (events, continuation) = AsyncStream.makeStream(of: StreamEvent.self)
        let handle = CurlTransport().stream(HTTPRequest(method: .post, url: server.baseURL + "/s", body: Data("{}".utf8))) {
            continuation.yield($0)
        }
        defer { handle.cancel() }
        var received = Data()
        var status = 0
        for await event in events {
            switch event {
            case .head(let code, let headers):
                status = code
                #expect(headers["transfer-encoding"] == "chunked")
            case .data(let data): received += data
            case .end(let error):
                #expect(error == nil)
                continuation.finish()
            }
        }
        #expect(status == 200)
        #expect(String(decoding: received, as: UTF8.self) == "first line\nsecond line\nthird line\n")
    }

    @Test func cancellingAnIdleStreamEndsItAndClosesTheConnection() async throws {
        let (closed, closedContinuation) = AsyncStream.makeStream(of: Void.self)
        let server = try LoopbackServer { _, connection in
            connection.beginChunks()
            connection.waitForPeerClose()
            connection.close()
            closedContinuation.yield()
        }
        defer { server.stop() }
        let (events, continuation) = AsyncStream.makeStream(of: StreamEvent.self)
        let handle = CurlTransport().stream(HTTPRequest(method: .post, url: server.baseURL + "/s")) { continuation.yield($0) }
        var iterator = events.makeAsyncIterator()
        guard case .head(200, _)? = await iterator.next() else {
            Issue.record("expected the response head first")
            return
        }
        handle.cancel()
        guard case .end(let error)? = await iterator.next() else {
            Issue.record("expected the end of the stream")
            return
        }
        #expect(error?.kind == .cancelled)
        var closedIterator = closed.makeAsyncIterator()
        await closedIterator.next()
    }
}
