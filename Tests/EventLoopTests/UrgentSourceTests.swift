import CLinuxIO
@testable import EventLoop
import Foundation
import Glibc
import Synchronization
import Testing

/// A busy loop still looks at its urgent sources (a listening socket) every few events of a
/// batch, so that a client waiting to be accepted does not wait for the whole batch.
@Suite struct UrgentSourceTests {
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// Records each call; a plain one reads its pipe's byte and leaves the loop.
    final class Recorder: EventSource {
        let fd: Int32
        let generation: UInt32 = 1
        let isUrgent: Bool
        let name: String
        let log: Log
        let loop: EventLoop

        init(fd: Int32, urgent: Bool, name: String, log: Log, loop: EventLoop) {
            self.fd = fd
            self.isUrgent = urgent
            self.name = name
            self.log = log
            self.loop = loop
        }

        func handle(events: UInt32) {
            log.append(name)
            guard !isUrgent else { return }
            var byte: UInt8 = 0
            _ = read(fd, &byte, 1)
            loop.unregister(self)
            close(fd)
        }
    }

    @Test func urgentSourcesArePolledWithinABatch() throws {
        let loop = try EventLoop()
        let log = Log()
        var quiet: [Int32] = [0, 0]
        #expect(pipe(&quiet) == 0)
        defer { close(quiet[1]) }
        try loop.register(Recorder(fd: quiet[0], urgent: true, name: "u", log: log, loop: loop), events: UInt32(RCS_EPOLLIN))
        try expectLooksWithinOneBatch(of: loop, log: log, look: "u")
    }

    /// A look at shared memory that must not wait for the batch: between events, not after it.
    @Test func urgentChecksAreMadeWithinABatch() throws {
        let loop = try EventLoop()
        let log = Log()
        loop.onUrgentCheck { log.append("c") }
        try expectLooksWithinOneBatch(of: loop, log: log, look: "c")
    }

    /// Runs the loop over 48 sources that are all ready before its first wait, so one batch
    /// holds them; expects `look` twice or more before the last of them is handled.
    private func expectLooksWithinOneBatch(of loop: EventLoop, log: Log, look: String) throws {
        for index in 0..<48 {
            var fds: [Int32] = [0, 0]
            #expect(pipe(&fds) == 0)
            _ = write(fds[1], "x", 1)
            close(fds[1])
            try loop.register(Recorder(fd: fds[0], urgent: false, name: "p\(index)", log: log, loop: loop), events: UInt32(RCS_EPOLLIN))
        }
        // Every plain source is ready before the loop's first wait: one batch holds them all.
        loop.start(name: "urgent-test")
        let deadline = Date(timeIntervalSinceNow: 10)
        while log.all.filter({ $0.hasPrefix("p") }).count < 48, Date() < deadline { sched_yield() }
        loop.stopAndWait()
        let entries = log.all
        let lastPlain = try #require(entries.lastIndex { $0.hasPrefix("p") })
        #expect(entries.filter { $0.hasPrefix("p") }.count == 48)
        #expect(entries[..<lastPlain].filter { $0 == look }.count >= 2, "\(entries)")
    }
}
