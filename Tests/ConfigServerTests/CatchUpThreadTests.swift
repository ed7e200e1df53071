import ConfigCore
@testable import ConfigServer
import ConfigStore
import Dispatch
import EventLoop
import Foundation
@testable import ServerCore
import Testing

/// A worker reads what its node's listener announced on a thread of its own, woken by the raise
/// itself: a loop busy with a long batch of fetches does not hold every writer of every node.
@Suite struct CatchUpThreadTests {
    @Test func aWorkerWhoseLoopIsBusyStillCatchesUp() throws {
        let server = try TestServer()
        let application = server.instance.application
        // The loop is held in one long piece of work until the end of the test.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        server.instance.server.loop.execute {
            holding.signal()
            release.wait()
        }
        holding.wait()
        defer { release.signal() }

        // Another node commits; this node's listener relays it: it moves the template's
        // counter, then raises the epoch (`ChangeFeed`'s `beginCatchUp`).
        let key = TemplateKey(project: "demo", namespace: .client)
        #expect(try server.commitUnheard("one") == 1)
        application.counters.bump(key)
        let epoch = application.board.raiseEpoch()

        // Bounded: a worker that waited for its loop would never get there while it is held.
        let deadline = Date(timeIntervalSinceNow: 10)
        while (application.board.caughtUp(0) ?? -1) < epoch, Date() < deadline { usleep(1000) }
        #expect((application.board.caughtUp(0) ?? -1) >= epoch, "the worker did not catch up while its loop was busy")
        #expect(application.templates.loadedVersions[key] == 1)
    }
}
