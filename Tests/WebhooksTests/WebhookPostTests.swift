@testable import Webhooks
import Foundation
import Synchronization
import Testing
import TestSupport

/// One webhook attempt against a loopback receiver: what docs/webhooks.md promises of it (the
/// address checked is the one connected to, no redirect, only the start of the answer kept).
@Suite(.timeLimit(.minutes(1)))
struct WebhookPostTests {
    /// Posts `body` to `url`, connecting to 127.0.0.1 as the check would have said.
    func post(_ url: String, timeout: Double = 5) throws -> WebhookPost.Outcome {
        let address = try WebhookAddress(url: url)
        return WebhookPost.send(url: url, address: address, connectTo: "127.0.0.1", headers: ["Content-Type": "application/json"],
                                body: Array("{}".utf8), timeout: timeout)
    }

    @Test func aNameIsConnectedToTheAddressChecked() throws {
        let server = try LoopbackServer { request, connection in
            let fields = "\(request.headers["host"] ?? "-") \(request.headers["content-type"] ?? "-")"
            connection.respond(status: 200, body: "\(request.method) \(fields)")
        }
        defer { server.stop() }
        // `.invalid` never resolves: only the pinned address can have answered.
        let outcome = try post("http://hooks.invalid:\(server.port)/hook")
        #expect(outcome.status == 200 && outcome.error == nil, "\(outcome.error ?? "")")
        #expect(String(decoding: outcome.response, as: UTF8.self) == "POST hooks.invalid:\(server.port) application/json")
    }

    @Test func aRedirectIsRecordedNotFollowed() throws {
        let requests = Mutex(0)
        let server = try LoopbackServer { _, connection in
            requests.withLock { $0 += 1 }
            connection.respond(status: 302, headers: ["Location": "http://169.254.169.254/latest"], body: "")
        }
        defer { server.stop() }
        let outcome = try post(server.baseURL + "/hook")
        #expect(outcome.status == 302 && outcome.error == nil)
        #expect(requests.withLock { $0 } == 1)
    }

    @Test func onlyTheFirstKibibyteOfALongAnswerIsKept() throws {
        let body = String(repeating: "x", count: 100 * 1_024)
        let server = try LoopbackServer { _, connection in connection.respond(status: 200, body: body) }
        defer { server.stop() }
        let outcome = try post(server.baseURL + "/hook")
        #expect(outcome.status == 200 && outcome.error == nil, "\(outcome.error ?? "")")
        #expect(outcome.response.count == WebhookPost.keptBytes)
    }

    @Test func anAnswerCutShortByTheTimeOutKeepsItsStatus() throws {
        let server = try LoopbackServer { _, connection in
            connection.write("HTTP/1.1 202 Accepted\r\nContent-Length: 100\r\n\r\nqueued")
            connection.waitForPeerClose()
            connection.close()
        }
        defer { server.stop() }
        let outcome = try post(server.baseURL + "/hook", timeout: 0.5)
        #expect(outcome.status == 202)
        #expect(String(decoding: outcome.response, as: UTF8.self) == "queued")
        #expect(outcome.error != nil)
    }

    @Test func noAnswerHasNoStatus() throws {
        let server = try LoopbackServer { _, connection in connection.close() }
        server.stop()
        let outcome = try post(server.baseURL + "/hook")
        #expect(outcome.status == nil && outcome.error != nil)
    }
}
