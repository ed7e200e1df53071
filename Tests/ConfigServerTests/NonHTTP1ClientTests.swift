import ConfigServer
import ServerCore
import Foundation
import Testing

/// A client that can never speak HTTP/1.x here — TLS to the plain port, HTTP/0.9, HTTP/2 —
/// gets its answer and the close at once, not at the header deadline. The deadline is 60 s
/// and every read gives up after 5 s, so an answer that waited for the deadline fails the
/// test instead of passing late.
@Suite(.timeLimit(.minutes(1))) final class NonHTTP1ClientTests {
    let server: TestServer

    init() throws {
        server = try TestServer { $0.http.headerTimeout = 60 }
    }

    /// The answer to `bytes`, after checking it closes the connection.
    private func answer(_ bytes: [UInt8]) throws -> TestResponse {
        let client = try TestClient(port: server.port, timeoutSeconds: 5)
        try client.send(bytes)
        let response = try client.readResponse()
        #expect(response.header("Connection") == "close")
        #expect(client.isClosedByServer())
        return response
    }

    /// What `curl https://…` sends first: a TLS record header (handshake, 0x16) and the start
    /// of a ClientHello. The client reads the plain-text 400 as a record it cannot parse and
    /// fails at once ("wrong version number"), as with nginx.
    @Test func aTLSClientHelloIsAnswered400AndClosedAtOnce() throws {
        let hello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03]
            + [UInt8](repeating: 0x5A, count: 32) + [0x20] + [UInt8](repeating: 0xA5, count: 32)
        let response = try answer(hello)
        #expect(response.status == 400)
        #expect(response.errorStatus == "INVALID_ARGUMENT")
        #expect(response.text.contains("TLS handshake"))
    }

    @Test(arguments: [
        (Array("GET /\r\n".utf8), 400),
        (Array("GET / HTTP/1.x\r\n".utf8), 400),
        (Array("GET / HTTP/2.0\r\n".utf8), 505),
        ([0x01, 0x02], 400),
        ([0x80], 400),
    ] as [([UInt8], Int)])
    func openingsThatCannotBecomeHTTP1AreRefusedAtOnce(_ opening: [UInt8], _ status: Int) throws {
        let response = try answer(opening)
        #expect(response.status == status)
        #expect(try response.json()["error"] != nil)
    }

    /// An HTTP/2 client with prior knowledge sends the connection preface (RFC 9113 §3.4): 505.
    @Test func theHTTP2PrefaceGets505() throws {
        let response = try answer(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8))
        #expect(response.status == 505)
        #expect(response.errorStatus == "UNIMPLEMENTED")
    }
}
