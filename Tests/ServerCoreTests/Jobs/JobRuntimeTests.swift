import ConfigCore
import ConfigStore
@testable import ServerCore
import Dispatch
import Foundation
import Synchronization
import Testing

/// The job runtime on a manual clock: jobs run when the clock reaches their time, when poked,
/// or when asked to run what is due; leader-only jobs only on the leader; work started aside is
/// waited for. Nothing here waits for real time.
@Suite struct JobRuntimeTests {
    let clock = ManualClock()

    func runtime(isLeader: Bool = true) -> JobRuntime {
        JobRuntime(clock: clock, isLeader: isLeader, queue: DispatchQueue(label: "jobs"), timeout: .seconds(5))
    }

    /// A job that records the times it ran at and is due again `interval` later.
    final class Recorder: Sendable {
        let runs = Mutex<[Date]>([])
        var count: Int { runs.withLock { $0.count } }

        func job(_ name: String, every interval: TimeInterval, scope: Job.Scope = .everyWorker) -> Job {
            Job(name, scope: scope) { [self] now, _ in
                runs.withLock { $0.append(now) }
                return now.addingTimeInterval(interval)
            }
        }
    }

    @Test func aJobRunsAtStartThenEachTimeTheClockReachesItsTime() {
        let runtime = runtime()
        let recorder = Recorder()
        runtime.add(recorder.job("tick", every: 10))
        runtime.start()
        runtime.runDue()
        #expect(recorder.count == 1)
        clock.advance(by: 9)
        runtime.runDue()
        #expect(recorder.count == 1, "not before its time")
        clock.advance(by: 1)
        runtime.runDue()
        #expect(recorder.runs.withLock { $0 } == [clock.now.addingTimeInterval(-10), clock.now])
    }

    @Test func movingTheClockWakesTheRuntimeByItself() {
        let runtime = runtime()
        let ran = DispatchSemaphore(value: 0)
        let times = Mutex<[Date]>([])
        runtime.add(Job("wake", scope: .everyWorker) { now, _ in
            times.withLock { $0.append(now) }
            ran.signal()
            return now.addingTimeInterval(60)
        }, firstDue: clock.now.addingTimeInterval(60))
        runtime.start()
        clock.advance(by: 60)
        #expect(ran.wait(timeout: .now() + 10) == .success)
        #expect(times.withLock { $0 } == [clock.now])
    }

    @Test func aJobThatWasLateRunsOnceForTheTimesItMissed() {
        let runtime = runtime()
        let recorder = Recorder()
        runtime.add(recorder.job("tick", every: 1), firstDue: clock.now.addingTimeInterval(1))
        runtime.start()
        clock.advance(by: 30)
        runtime.runDue()
        #expect(recorder.count == 1)
    }

    @Test func aClockSetBackDoesNotHoldTheJobsBack() {
        let runtime = runtime()
        let recorder = Recorder()
        runtime.add(recorder.job("tick", every: 10))
        runtime.start()
        runtime.runDue()
        clock.set(clock.now.addingTimeInterval(-3_600))
        runtime.runDue()
        #expect(recorder.count == 1)
        clock.advance(by: 10)
        runtime.runDue()
        #expect(recorder.count == 2, "due ten seconds after its last run, not an hour and ten seconds")
    }

    @Test func aLeaderOnlyJobRunsOnTheLeaderOnly() {
        let follower = runtime(isLeader: false)
        let leader = runtime(isLeader: true)
        for runtime in [follower, leader] {
            runtime.add(Recorder().job("every worker", every: 1))
            runtime.add(Recorder().job("leader", every: 1, scope: .leaderOnly))
        }
        #expect(follower.jobNames == ["every worker"])
        #expect(leader.jobNames == ["every worker", "leader"])
    }

    @Test func aPokedJobRunsBeforeItsTime() {
        let runtime = runtime()
        let recorder = Recorder()
        runtime.add(recorder.job("poked", every: 3_600))
        runtime.start()
        runtime.runDue()
        runtime.poke("poked")
        runtime.runDue()
        #expect(recorder.count == 2)
        // Unknown names are ignored.
        runtime.poke("nobody")
        runtime.runDue()
        #expect(recorder.count == 2)
    }

    @Test func aPokeWhileTheJobRunsMakesItRunAgain() {
        let runtime = runtime()
        let runs = Atomic(0)
        runtime.add(Job("self-poking", scope: .everyWorker) { now, runtime in
            // Something to handle came in while it ran.
            if runs.add(1, ordering: .relaxed).newValue == 1 { runtime.poke("self-poking") }
            return now.addingTimeInterval(3_600)
        })
        runtime.start()
        runtime.runDue()
        #expect(runs.load(ordering: .relaxed) == 2)
    }

    @Test func runDueWaitsForWorkStartedAsideAndItsEnding() {
        let runtime = runtime()
        let aside = DispatchQueue(label: "aside")
        let ended = Mutex<[Int]>([])
        runtime.add(Job("spawning", scope: .everyWorker) { now, runtime in
            for index in 0..<4 {
                runtime.runAside(on: aside) { index * 10 } then: { value in ended.withLock { $0.append(value) } }
            }
            return now.addingTimeInterval(3_600)
        })
        runtime.start()
        runtime.runDue()
        #expect(ended.withLock { $0.sorted() } == [0, 10, 20, 30])
    }

    /// What bounds how long a job waits for the one before it (the store poll behind a job
    /// whose store does not answer): each job, and each end of work aside, runs with its store
    /// calls bounded by the runtime's time-out from its start.
    @Test func eachJobAndEachEndOfWorkAsideHasAStoreDeadline() throws {
        let runtime = runtime()
        let deadlines = Mutex<[ContinuousClock.Instant?]>([])
        runtime.add(Job("bounded", scope: .everyWorker) { now, runtime in
            deadlines.withLock { $0.append(StoreDeadline.current) }
            runtime.runAside(on: DispatchQueue(label: "aside")) { () } then: { _ in
                deadlines.withLock { $0.append(StoreDeadline.current) }
            }
            return now.addingTimeInterval(3_600)
        })
        let before = ContinuousClock.now
        runtime.start()
        runtime.runDue()
        let after = ContinuousClock.now
        let recorded = deadlines.withLock { $0 }
        #expect(recorded.count == 2)
        for deadline in recorded {
            let deadline = try #require(deadline, "a store call here would wait as long as the store does")
            #expect(deadline >= before + .seconds(5) && deadline <= after + .seconds(5))
        }
    }

    @Test func aStoppedRuntimeRunsNothing() {
        let runtime = runtime()
        let recorder = Recorder()
        runtime.add(recorder.job("tick", every: 1), firstDue: clock.now.addingTimeInterval(1))
        runtime.start()
        runtime.stop(waitingAtMost: 1)
        clock.advance(by: 5)
        runtime.poke("tick")
        runtime.runDue()
        #expect(recorder.count == 0)
    }

    @Test func theManualClockWakesWhoeverWaitsOnceItIsMovedThere() {
        let woken = Mutex<[String]>([])
        clock.wake(at: clock.now.addingTimeInterval(5)) { woken.withLock { $0.append("five") } }
        clock.wake(at: clock.now.addingTimeInterval(10)) { woken.withLock { $0.append("ten") } }
        clock.wake(at: clock.now) { woken.withLock { $0.append("now") } }
        #expect(woken.withLock { $0 } == ["now"])
        clock.advance(by: 5)
        #expect(woken.withLock { $0 } == ["now", "five"])
        clock.set(clock.now.addingTimeInterval(60))
        #expect(woken.withLock { $0 } == ["now", "five", "ten"])
    }
}
