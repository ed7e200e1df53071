import ConfigCore
@testable import ServerCore
import ConfigStore
import Dispatch
import EventLoop
import Foundation
import Synchronization
import Testing
import TestSupport

/// A request waits for one read of the store that began after it arrived, never past its
/// deadline, and only briefly while the node knows the store cannot be reached.
@Suite final class ReloadGateTests {
    let loop: EventLoop
    let board = CatchUpBoard.local()
    let target = ReloadTarget.template(TemplateKey(project: "demo", namespace: .client))
    let tally = Tally()

    /// Reads begun, and reads ended.
    final class Tally: Sendable {
        let begun = Atomic(0)
        let ended = Atomic(0)
    }

    init() throws {
        loop = try EventLoop()
        loop.start(name: "reload-gate-tests")
    }

    deinit { loop.stopAndWait() }

    /// A read that blocks on `gate` (when given), then answers `result`.
    func read(blockingOn gate: DispatchSemaphore? = nil, started: DispatchSemaphore? = nil,
              result: Bool = true) -> @Sendable () -> Bool {
        { [tally] in
            tally.begun.add(1, ordering: .sequentiallyConsistent)
            started?.signal()
            _ = gate?.wait(timeout: .now() + 90)
            tally.ended.add(1, ordering: .sequentiallyConsistent)
            return result
        }
    }

    /// What a request was answered, how many reads had ended then, and after how long.
    final class Answer: Sendable {
        let value = Mutex<(reloaded: Bool, readsEnded: Int, seconds: Double)?>(nil)
        let given = DispatchSemaphore(value: 0)
        /// The call that asked had returned (so the answer, if any, was not given at once).
        let askReturned = Atomic(false)
        /// The answer came before the call that asked returned.
        let givenAtOnce = Atomic(false)
        var wasGivenAtOnce: Bool { givenAtOnce.load(ordering: .sequentiallyConsistent) }
    }

    /// Asks on the loop.
    func ask(_ gate: ReloadGate, _ read: @escaping @Sendable () -> Bool, queued: DispatchSemaphore? = nil) -> Answer {
        let answer = Answer()
        let asked = Date()
        let target = target
        loop.execute { [tally] in
            gate.afterReload(of: target, by: read) { reloaded in
                let ended = tally.ended.load(ordering: .sequentiallyConsistent)
                answer.givenAtOnce.store(!answer.askReturned.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
                answer.value.withLock { $0 = (reloaded, ended, Date().timeIntervalSince(asked)) }
                answer.given.signal()
            }
            answer.askReturned.store(true, ordering: .sequentiallyConsistent)
            queued?.signal()
        }
        return answer
    }

    func awaitAnswer(_ answer: Answer) throws -> (reloaded: Bool, readsEnded: Int, seconds: Double) {
        guard answer.given.wait(timeout: .now() + 30) == .success, let value = answer.value.withLock({ $0 }) else {
            throw TestFailure("no answer within 30 s")
        }
        return value
    }

    @Test func aRequestArrivingWhileAReadIsUnderWayWaitsForTheNextRead() throws {
        let gate = ReloadGate(loop: loop, queue: DispatchQueue(label: "reloads"), timeout: .seconds(5), board: board)
        let firstStarted = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), queued = DispatchSemaphore(value: 0)
        let first = ask(gate, read(blockingOn: release, started: firstStarted))
        firstStarted.wait()
        // The read under way may have missed a change acknowledged just before this request.
        let second = ask(gate, read(), queued: queued)
        queued.wait()
        release.signal()
        #expect(try awaitAnswer(first).reloaded)
        let answer = try awaitAnswer(second)
        #expect(answer.reloaded && answer.readsEnded == 2, "answered after a read that began after it arrived: \(answer)")
    }

    @Test func aRequestIsAnsweredFromMemoryAtItsDeadlineWhateverTheReadStillDoes() throws {
        let gate = ReloadGate(loop: loop, queue: DispatchQueue(label: "reloads"), timeout: .milliseconds(300), board: board)
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        let answer = try awaitAnswer(ask(gate, read(blockingOn: release)))
        #expect(!answer.reloaded && answer.readsEnded == 0, "from memory, before the read ended: \(answer)")
        #expect(answer.seconds >= 0.25 && answer.seconds < 9, "answered at its deadline, before the read ended")
    }

    @Test func afterAFailedReadTheNextRequestStillWaitsForAReadOfItsOwn() throws {
        let gate = ReloadGate(loop: loop, queue: DispatchQueue(label: "reloads"), timeout: .seconds(5), board: board)
        #expect(try !awaitAnswer(ask(gate, read(result: false))).reloaded)
        // The store is back: the next request gets what it holds, not memory at once.
        let answer = try awaitAnswer(ask(gate, read()))
        #expect(answer.reloaded && answer.readsEnded == 2, "\(answer)")
        #expect(!board.storeUnreachable)
    }

    @Test func whileTheStoreIsKnownUnreachableARequestWaitsOnlyBriefly() throws {
        // A time-out far longer than a loaded machine can delay a 30 ms timer.
        let gate = ReloadGate(loop: loop, queue: DispatchQueue(label: "reloads"), timeout: .seconds(60), board: board)
        board.recordAttempt(began: CatchUpBoard.now, answered: false)
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        let answer = try awaitAnswer(ask(gate, read(blockingOn: release)))
        #expect(!answer.reloaded && answer.readsEnded == 0)
        #expect(answer.seconds < 20, "waited \(answer.seconds) s; 30 ms while the store is unreachable, not the 60 s time-out")
    }

    @Test func whileTheStoreIsKnownUnreachableARequestBehindAHangingReadIsAnsweredAtOnce() throws {
        let gate = ReloadGate(loop: loop, queue: DispatchQueue(label: "reloads"), timeout: .seconds(60), board: board)
        board.recordAttempt(began: CatchUpBoard.now, answered: false)
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        let firstBegan = DispatchSemaphore(value: 0)
        let first = ask(gate, read(blockingOn: release, started: firstBegan))
        #expect(try !awaitAnswer(first).reloaded)
        firstBegan.wait()
        letTimePass(seconds: 0.05)  // the read has now hung for longer than the brief wait
        // The first read has outlasted the brief wait, and the second's cannot begin before it ends.
        let followed = DispatchSemaphore(value: 0)
        let second = ask(gate, read(started: followed))
        let answer = try awaitAnswer(second)
        #expect(!answer.reloaded && answer.readsEnded == 0)
        #expect(second.wasGivenAtOnce, "answered from memory before the call that asked returned")
        #expect(!first.wasGivenAtOnce, "the first waited for its read, briefly")
        // The read it could not wait for still follows the one in flight.
        release.signal()
        #expect(followed.wait(timeout: .now() + 30) == .success, "a read followed the one in flight")
    }

    /// Right after a cut heals, a read stuck since the cut (its connection's TCP backing off)
    /// fails after a sibling's read, begun later, was answered: the store is reachable, so the
    /// next request waits for a read of its own instead of being answered from memory at once
    /// while that sibling tells its streams of what it read.
    @Test func aReadStuckSinceACutThatFailsAfterASiblingReachedTheStoreLeavesItReachable() throws {
        let gate = ReloadGate(loop: loop, queue: DispatchQueue(label: "reloads"), timeout: .seconds(60), board: board)
        board.recordAttempt(began: CatchUpBoard.now, answered: false)  // the cut
        let releaseStuck = DispatchSemaphore(value: 0), stuckBegan = DispatchSemaphore(value: 0)
        defer { releaseStuck.signal() }
        let stuck = ask(gate, read(blockingOn: releaseStuck, started: stuckBegan, result: false))
        stuckBegan.wait()
        #expect(try !awaitAnswer(stuck).reloaded, "in the cut: from memory")
        letTimePass(seconds: 0.01)  // the clock counts milliseconds: the sibling's read begins later
        board.recordAttempt(began: CatchUpBoard.now, answered: true)  // the link healed: a sibling's read is answered
        #expect(!board.storeUnreachable)
        let releaseNext = DispatchSemaphore(value: 0), nextBegan = DispatchSemaphore(value: 0)
        defer { releaseNext.signal() }
        let next = ask(gate, read(blockingOn: releaseNext, started: nextBegan))
        releaseStuck.signal()
        // The next read begins once the stuck one's failure is recorded (one queue).
        #expect(nextBegan.wait(timeout: .now() + 30) == .success)
        #expect(!board.storeUnreachable, "the failure of a read begun before the sibling's says nothing of the store now")
        #expect(!next.wasGivenAtOnce && next.value.withLock { $0 } == nil, "waiting for its own read, not from memory")
        releaseNext.signal()
        let answer = try awaitAnswer(next)
        #expect(answer.reloaded && answer.readsEnded == 2, "\(answer)")
    }
}
