import ConfigServer
import ServerCore
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) final class HTTPHardeningTests {
    let server: TestServer

    init() throws {
        server = try TestServer { $0.http.maxBodyBytes = 1024; $0.http.headerTimeout = 1; $0.http.bodyTimeout = 1 }
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505),
        ("GET /\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost: u@a\r\n\r\n", 400),
        ("POST /v1/projects HTTP/1.1\r\nHost: a\r\nContent-Length: 5000\r\n\r\n", 413),
        ("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: a\r\n\r\n", 414),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: \(String(repeating: "b", count: 17000))\r\n\r\n", 431),
    ])
    func malformedRequestsGetAJSONErrorAndAClose(_ raw: String, _ status: Int) throws {
        let client = try server.client()
        try client.send(raw)
        let response = try client.readResponse()
        #expect(response.status == status)
        #expect(response.header("Connection") == "close")
        #expect(try response.json()["error"] != nil)
        #expect(client.isClosedByServer())
    }

    /// A client that sends its whole body before it reads (Python's http.client) still reads
    /// the 413: the server drains what follows instead of closing on unread input, which would
    /// answer the rest with a reset that destroys the answer in the client's buffer.
    @Test func aBodyOverTheLimitSentWholeBeforeReadingStillGetsItsAnswer() throws {
        let request = TestClient.format("POST", "/v1/projects", body: [UInt8](repeating: UInt8(ascii: "a"), count: 4 << 20))
        for attempt in 0..<20 {
            let client = try server.client()
            var sendFailure: String?
            do { try client.send(request) } catch { sendFailure = "\(error)" }
            #expect(sendFailure == nil, "attempt \(attempt)")
            let response = try client.readResponse()
            #expect(response.status == 413 && response.errorStatus == "OUT_OF_RANGE", "attempt \(attempt): \(response.text)")
            #expect(client.isClosedByServer())
        }
    }

    @Test func everyResponseCarriesARequestID() throws {
        let client = try server.client()
        try client.send("GET /healthz HTTP/1.1\r\nHost: a\r\nX-Request-Id: trace-42\r\n\r\nGET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try client.readResponse().header("X-Request-Id") == "trace-42")
        let generated = try #require(try client.readResponse().header("X-Request-Id"))
        #expect(!generated.isEmpty && generated != "trace-42")
    }

    @Test func smuggledRequestIsNeverAnswered() throws {
        let client = try server.client()
        try client.send("POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 40\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try client.readResponse().status == 400)
        #expect(client.isClosedByServer())
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let client = try server.client()
        let one = TestClient.format("GET", "/healthz")
        let two = TestClient.format("GET", "/nothing-here")
        let three = TestClient.format("GET", "/readyz")
        try client.send(one + two + three)
        #expect(try client.readResponse().status == 200)
        #expect(try client.readResponse().status == 404)
        #expect(try client.readResponse().text == "{\"status\":\"ready\"}")
    }

    /// The end of input may arrive with the last request, behind it, or later: every request
    /// sent before it is answered, then the server closes.
    @Test(arguments: [false, true])
    func requestsSentBeforeTheClientsFINAreAnsweredThenTheServerCloses(_ twoRequests: Bool) throws {
        let client = try server.client()
        let request = TestClient.format("GET", "/healthz")
        try client.send(twoRequests ? request + request : request)
        client.finishSending()
        for _ in 0..<(twoRequests ? 2 : 1) { #expect(try client.readResponse().status == 200) }
        #expect(client.isClosedByServer())
    }

    @Test func aKeepAliveClientIsAnsweredAgainAfterItsSocketWasDrained() throws {
        // Each request is answered before the next is sent, so every one arrives on an
        // emptied socket: a read loop that stopped early would leave one unanswered.
        let client = try server.client()
        for index in 0..<50 {
            try client.send(TestClient.format("GET", index % 2 == 0 ? "/healthz" : "/readyz"))
            #expect(try client.readResponse().status == 200)
        }
        client.finishSending()
        #expect(client.isClosedByServer())
    }

    @Test func headAndExpectContinue() throws {
        let client = try server.client()
        try client.send("HEAD /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        let head = try client.readResponse(head: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "15")
        try client.send("POST /v1/projects HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        try client.send("{}")
        #expect(try client.readResponse().status == 401)
    }

    @Test func chunkedRequestBodies() throws {
        let client = try server.client()
        try client.send("PUT /v1/projects/demo/remoteConfig HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer \(TestServer.adminToken)\r\nIf-Match: *\r\nTransfer-Encoding: chunked\r\n\r\n")
        let body = Templates.single("chunked")
        try client.send(String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n")
        #expect(try client.readResponse().status == 200)
    }

    @Test func slowHeadersAreCutOff() throws {
        let client = try server.client()
        try client.send("GET /healthz HTTP/1.1\r\nHost: a\r\n")
        let response = try client.readResponse()
        #expect(response.status == 408)
        #expect(client.isClosedByServer())
    }

    /// A complete head, then a body that stops short: cut on the body deadline, nothing published.
    @Test func slowBodiesAreCutOff() throws {
        let client = try server.client()
        try client.send("PUT /v1/projects/demo/remoteConfig HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer \(TestServer.adminToken)\r\n"
            + "If-Match: *\r\nContent-Length: 40\r\n\r\n{\"parameters\":")
        let response = try client.readResponse()
        #expect(response.status == 408)
        #expect(client.isClosedByServer())
        let versions = try server.admin("GET", "/v1/projects/demo/remoteConfig:listVersions")
        #expect(versions.status == 200 && !versions.text.contains("versionNumber"))
    }
}
