import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport
@testable import OutboundHTTP

/// What a caller that must reach the address it checked relies on: the pinned address, no
/// redirect, no other scheme, no proxy, and bounds on what is read and kept.
@Suite(.timeLimit(.minutes(3)))
struct CurlTransportOptionsTests {
    @Test func aPinnedNameConnectsToItsAddressAndIsSentAsTheHost() throws {
        let server = try LoopbackServer { request, connection in
            connection.respond(status: 200, body: request.headers["host"] ?? "-")
        }
        defer { server.stop() }
        let url = "http://hooks.invalid:\(server.port)/p"
        let pinned = HTTPRequest.PinnedAddress(host: "hooks.invalid", port: server.port, address: "127.0.0.1")
        let response = try CurlTransport().sendBlocking(HTTPRequest(method: .post, url: url, timeout: 5, pinnedAddress: pinned))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hooks.invalid:\(server.port)")
        // The same request unpinned: `.invalid` never resolves (RFC 6761 §6.4).
        #expect(throws: TransportError.self) { try CurlTransport().sendBlocking(HTTPRequest(method: .post, url: url, timeout: 5)) }
    }

    @Test(arguments: [
        ("hooks.example.com", 443, "203.0.113.9", "hooks.example.com:443:203.0.113.9"),
        ("hooks.example.com", 8443, "2001:db8::1", "hooks.example.com:8443:[2001:db8::1]"),
    ])
    func aPinIsWrittenAsCurlReadsIt(host: String, port: Int, address: String, entry: String) {
        #expect(HTTPRequest.PinnedAddress(host: host, port: port, address: address).resolveEntry == entry)
    }

    @Test func aRedirectIsAnsweredNotFollowed() throws {
        let requests = Mutex(0)
        let server = try LoopbackServer { request, connection in
            requests.withLock { $0 += 1 }
            connection.respond(status: 307, headers: ["Location": "/elsewhere"], body: "")
        }
        defer { server.stop() }
        let response = try CurlTransport().sendBlocking(HTTPRequest(method: .post, url: server.baseURL + "/", timeout: 5))
        #expect(response.status == 307)
        #expect(response.header("location") == "/elsewhere")
        #expect(requests.withLock { $0 } == 1)
    }

    @Test(arguments: ["file:///etc/hostname", "ftp://127.0.0.1:9/x", "gopher://127.0.0.1:9/x"])
    func onlyHTTPIsSpoken(url: String) {
        let error = #expect(throws: TransportError.self) {
            try CurlTransport().sendBlocking(HTTPRequest(method: .get, url: url, timeout: 5))
        }
        #expect(error?.kind == .connectionFailed)
    }

    @Test func aLongAnswerIsReadUpToTheLimitAndKeptUpToItsOwn() throws {
        let body = String(repeating: "0123456789abcdef", count: 8 * 1_024)
        // Announces a megabyte, sends 128 KiB, then waits: a reader that did not stop would time out.
        let server = try LoopbackServer { _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n" + body)
            connection.waitForPeerClose()
            connection.close()
        }
        defer { server.stop() }
        let transport = CurlTransport(options: .init(readLimit: 64 * 1_024, keptLimit: 1_024))
        // Past the read limit the transfer stops, and what was read is the answer: no error.
        let response = try transport.sendBlocking(HTTPRequest(method: .post, url: server.baseURL + "/", timeout: 30))
        #expect(response.status == 200)
        #expect(response.body == Data(body.utf8.prefix(1_024)))
    }

    @Test func anAnswerWithinTheReadLimitIsReadToItsEndAndKeptUpToTheKeptLimit() throws {
        let server = try LoopbackServer { _, connection in connection.respond(status: 503, body: "unavailable, try later") }
        defer { server.stop() }
        let response = try CurlTransport(options: .init(readLimit: 64, keptLimit: 11))
            .sendBlocking(HTTPRequest(method: .post, url: server.baseURL + "/", timeout: 5))
        #expect(response.status == 503)
        #expect(String(decoding: response.body, as: UTF8.self) == "unavailable")
    }

    @Test func encodedBodiesAreOfferedOnlyWhenAccepted() throws {
        let server = try LoopbackServer { request, connection in
            connection.respond(status: 200, body: request.headers["accept-encoding"] ?? "none")
        }
        defer { server.stop() }
        let request = HTTPRequest(method: .get, url: server.baseURL + "/", timeout: 5)
        let offered = try CurlTransport().sendBlocking(request)
        #expect(String(decoding: offered.body, as: UTF8.self).contains("gzip"))
        let plain = try CurlTransport(options: .init(acceptsEncodedBodies: false)).sendBlocking(request)
        #expect(String(decoding: plain.body, as: UTF8.self) == "none")
    }

    /// In a child process: the proxy variable is the process's environment.
    @Test func theEnvironmentsProxyIsUsedOnlyWhenAllowed() async {
        await #expect(processExitsWith: .success) {
            let target = try LoopbackServer { _, connection in connection.respond(status: 200, body: "direct") }
            let proxy = try LoopbackServer { _, connection in connection.respond(status: 200, body: "proxy") }
            setenv("http_proxy", proxy.baseURL, 1)
            unsetenv("no_proxy")
            unsetenv("NO_PROXY")
            let request = HTTPRequest(method: .get, url: target.baseURL + "/", timeout: 5)
            let proxied = try CurlTransport().sendBlocking(request)
            let direct = try CurlTransport(options: .init(usesEnvironmentProxy: false)).sendBlocking(request)
            guard proxied.body == Data("proxy".utf8), direct.body == Data("direct".utf8) else { exit(1) }
        }
    }
}
