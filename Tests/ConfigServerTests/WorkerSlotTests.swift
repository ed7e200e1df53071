@testable import ConfigServer
import Glibc
import Testing

/// The supervisor's restart policy and exit decoding, without processes.
@Suite struct WorkerSlotTests {
    /// Starts the slot's process, lets it serve for `servedMilliseconds` from `now`, and exits it.
    static func serveAndExit(_ slot: inout WorkerSlot, now: inout Int64, servedMilliseconds: Int64) -> Int64? {
        slot.started(pid: 42)
        slot.serving(at: now)
        now += servedMilliseconds
        return slot.exited(at: now)
    }

    @Test func restartsBackOffUpToTheCapAndStartAfreshAfterServingAWhile() {
        var slot = WorkerSlot()
        var now: Int64 = 1_000
        let delays = (0..<9).map { _ in Self.serveAndExit(&slot, now: &now, servedMilliseconds: 1_000) }
        #expect(delays == [100, 200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000])
        #expect(slot.restartAt == now + 10_000)
        #expect(Self.serveAndExit(&slot, now: &now, servedMilliseconds: WorkerSlot.stableAfterMilliseconds) == 100)
        #expect(slot.restartAt == now + 100)
        #expect(slot.pid == nil && !slot.isServing)
    }

    @Test func aWorkerThatNeverServesIsGivenUpAfterFiveStartsInARow() {
        var slot = WorkerSlot()
        for _ in 1..<WorkerSlot.maximumFailedStarts {
            slot.started(pid: 42)
            #expect(slot.exited(at: 0) != nil)
        }
        slot.started(pid: 42)
        #expect(slot.exited(at: 0) == nil)
        #expect(slot.failedStarts == 5 && slot.restartAt == nil)
    }

    @Test func servingOnceClearsTheFailedStarts() {
        var slot = WorkerSlot()
        var now: Int64 = 0
        for _ in 1..<WorkerSlot.maximumFailedStarts {
            slot.started(pid: 42)
            _ = slot.exited(at: now)
        }
        #expect(Self.serveAndExit(&slot, now: &now, servedMilliseconds: 10) != nil)
        #expect(slot.failedStarts == 0)
    }

    @Test func exitsAreDecodedForTheLog() {
        #expect(WorkerExit(status: 0).description == "exit status 0")
        #expect(WorkerExit(status: 1 << 8).description == "exit status 1")
        #expect(WorkerExit(status: SIGKILL).description == "killed by signal 9 (Killed)")
        #expect(WorkerExit(status: SIGABRT | 0x80).description == "killed by signal 6 (Aborted), core dumped")
    }
}
