import CLinuxIO
@testable import EventLoop
import Foundation
import Glibc
import HTTP1
import Logging
import Synchronization
import Testing

/// A refetch storm fills the accept queue: a loop accepting a burst of connections still makes
/// its urgent checks (and runs the answers other threads handed over) between accepts, not
/// after the burst.
@Suite struct AcceptBurstTests {
    struct Silent: HTTPRequestHandler {
        func handle(_ request: HTTPRequest, context: RequestContext, responder: Responder) {}
    }

    @Test func theUrgentChecksAreMadeBetweenTheAcceptsOfABurst() throws {
        let loop = try EventLoop()
        let server = HTTPServer(configuration: HTTPServerConfiguration(accessLog: false), handler: Silent(), loop: loop,
                                logger: Logger(label: "accept-burst-test"))
        let port = try server.listen(host: "127.0.0.1", port: 0)
        // Connected before the loop first looks: one readiness of the listener, one burst.
        let clients = (0..<40).map { _ in rcs_connect_tcp("127.0.0.1", Int32(port)) }
        defer { for fd in clients where fd >= 0 { close(fd) } }
        #expect(clients.allSatisfy { $0 >= 0 })
        // What the server had accepted at each check (read on the loop thread).
        let acceptedAtChecks = Mutex<[Int]>([])
        loop.onUrgentCheck { acceptedAtChecks.withLock { $0.append(server.connectionCount) } }
        loop.start(name: "accept-burst-test")
        let deadline = Date(timeIntervalSinceNow: 10)
        while acceptedAtChecks.withLock({ $0.count }) < 2, Date() < deadline { sched_yield() }
        server.shutdown()
        let counts = acceptedAtChecks.withLock { $0 }
        #expect(counts.prefix(2) == [15, 31], "checks made at \(counts) connections")
    }
}
