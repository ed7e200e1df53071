import Testing

/// RFC 9110 §8.6: a 204 carries no `Content-Length`, and a 304 none but the length its 200
/// would have had (which the server does not know when it answers 304): a cache freshening
/// its stored answer with a 304's fields would otherwise take a length of 0. With no length and
/// no body, the keep-alive connection goes on to the next request.
@Suite(.timeLimit(.minutes(1))) struct BodilessAnswerTests {
    @Test func a304AndA204CarryNoContentLengthAndTheConnectionGoesOn() throws {
        let server = try TestServer()
        try server.publish(Templates.single("a"))
        let client = try server.client()
        let body = Array(OFREPTests.context("\"targetingKey\":\"k\"").utf8)
        func evaluate(_ headers: [(String, String)] = []) throws -> TestResponse {
            try client.send(TestClient.format("POST", "/ofrep/v1/evaluate/flags", headers: [("X-API-Key", TestServer.apiKey)] + headers,
                                              body: body))
            return try client.readResponse()
        }
        let answer = try evaluate()
        #expect(answer.status == 200 && answer.header("Content-Length") == "\(answer.body.count)")
        let tag = try #require(answer.header("ETag"))
        for _ in 0 ..< 2 {  // the full evaluation's 304, then the repeated poll's
            let notModified = try evaluate([("If-None-Match", tag)])
            #expect(notModified.status == 304 && notModified.header("ETag") == tag)
            #expect(notModified.header("Content-Length") == nil, "\(notModified.headers)")
        }
        try client.send(TestClient.format("OPTIONS", "/ofrep/v1/evaluate/flags"))
        let preflight = try client.readResponse()
        #expect(preflight.status == 204)
        #expect(preflight.header("Content-Length") == nil, "\(preflight.headers)")
        let again = try evaluate()
        #expect(again.status == 200 && again.body == answer.body)
    }

    /// A HEAD answer still names the length its GET would send.
    @Test func aHeadAnswerKeepsItsLength() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.send(TestClient.format("GET", "/healthz"))
        let get = try client.readResponse()
        try client.send(TestClient.format("HEAD", "/healthz"))
        let head = try client.readResponse(head: true)
        #expect(get.status == 200 && head.status == 200)
        #expect(head.header("Content-Length") == "\(get.body.count)")
    }
}
