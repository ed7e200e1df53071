import ConfigServer
import ServerCore
import Foundation
import Testing

/// The answers the HTTP server gives by itself, before any route runs, carry Google's error
/// body like every other error of the API, byte for byte.
@Suite(.timeLimit(.minutes(1))) struct TransportErrorBodyTests {
    static let jsonType = "application/json; charset=utf-8"

    @Test func aSlowRequestHeadIsAnswered408InGooglesShape() throws {
        let server = try TestServer { $0.http.headerTimeout = 1 }
        let client = try server.client()
        try client.send("GET /healthz HTTP/1.1\r\nHost: a\r\n")
        let response = try client.readResponse()
        #expect(response.status == 408)
        #expect(response.header("Content-Type") == Self.jsonType)
        #expect(response.text == #"{"error":{"code": 408,"message":"The client took too long to send its request.","status":"DEADLINE_EXCEEDED"}}"#)
    }

    @Test(arguments: [
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505, "UNIMPLEMENTED"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: \(String(repeating: "b", count: 17000))\r\n\r\n", 431, "INVALID_ARGUMENT"),
        ("POST /v1/projects HTTP/1.1\r\nHost: a\r\nContent-Length: 5000\r\n\r\n", 413, "OUT_OF_RANGE"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n", 400, "INVALID_ARGUMENT"),
    ])
    func aMalformedRequestIsAnsweredInGooglesShape(_ raw: String, _ status: Int, _ canonical: String) throws {
        let server = try TestServer { $0.http.maxBodyBytes = 1024 }
        let client = try server.client()
        try client.send(raw)
        let response = try client.readResponse()
        #expect(response.status == status)
        #expect(response.header("Content-Type") == Self.jsonType)
        #expect(response.text.hasPrefix("{\"error\":{\"code\": \(status),\"message\":\""), "\(response.text)")
        #expect(response.text.hasSuffix("\",\"status\":\"\(canonical)\"}}"), "\(response.text)")
    }

    @Test func aConnectionBeyondTheLimitIsRefusedWithA503InGooglesShape() throws {
        let server = try TestServer { $0.http.maxConnectionsPerWorker = 1 }
        let first = try server.client()
        try first.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(try first.readResponse().status == 200)
        let refused = try server.client()
        let response = try refused.readResponse()
        #expect(response.status == 503)
        #expect(response.header("Content-Type") == Self.jsonType)
        #expect(response.header("Retry-After") == "5")
        #expect(response.text == #"{"error":{"code": 503,"message":"The server is at its connection limit; retry later.","status":"UNAVAILABLE"}}"#)
        #expect(refused.isClosedByServer())
    }
}
