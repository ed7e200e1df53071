package import ConfigCore
import ConfigStore
package import Dispatch
package import Foundation
import Synchronization

/// Runs a worker's background jobs (docs/server-layout.md, "Background work"), one at a time on
/// one serial queue, the store executor's jobs lane. Each job is due at a time of the injected
/// clock; the runtime asks the clock to wake it for the earliest, so a `ManualClock` moved past
/// a job's time runs it, and ``runDue()`` runs what is due to the end without waiting.
///
/// A job's slow calls that need no store (a webhook's HTTP post) run aside, on a queue of the
/// job's own (``runAside(on:_:then:)``), and end back on the runtime's queue.
package final class JobRuntime: Sendable {
    package let clock: any WallClock
    /// Whether this worker leads its node, and so runs the `leaderOnly` jobs.
    let isLeader: Bool
    private let queue: DispatchQueue
    /// How long a job's store calls may take from the moment it starts
    /// (`store.requestTimeoutSeconds`).
    private let timeout: Duration
    /// Work started aside and not yet ended back on the queue.
    private let aside = DispatchGroup()
    private let state = Mutex(State())

    private struct State {
        var jobs: [Scheduled] = []
        /// The time the clock will wake the runtime for, if it was asked.
        var armedFor: Date?
        /// A run of the due jobs is queued: pokes meanwhile add none.
        var runQueued = false
        /// The clock's time when the due jobs last ran.
        var lastRun: Date?
        var started = false
        var stopped = false
    }

    private struct Scheduled {
        let job: Job
        var due: Date
        /// Counts pokes, so that one that comes while the job runs makes it due again at once.
        var pokes = 0
    }

    /// - Parameters:
    ///   - queue: the serial queue the jobs run on (`StoreExecutor.jobs`).
    ///   - timeout: how long a job's store calls may take.
    package init(clock: any WallClock, isLeader: Bool, queue: DispatchQueue, timeout: Duration) {
        self.clock = clock
        self.isLeader = isLeader
        self.queue = queue
        self.timeout = timeout
    }

    /// Adds `job`, due first at `firstDue` (at start when nil); a leader-only one only on the
    /// leader. Call before ``start()``.
    package func add(_ job: Job, firstDue: Date? = nil) {
        guard job.scope == .everyWorker || isLeader else { return }
        let due = firstDue ?? clock.now
        state.withLock { $0.jobs.append(Scheduled(job: job, due: due)) }
    }

    /// The jobs this worker runs, by name.
    var jobNames: [String] {
        state.withLock { $0.jobs.map(\.job.name) }
    }

    /// Runs each job when it is due from now on (once).
    package func start() {
        state.withLock { $0.started = true }
        arm()
    }

    /// Makes the job named `name` due now, for something it should handle at once (a commit
    /// wrote webhook events); any thread, never blocks.
    package func poke(_ name: String) {
        let now = clock.now
        let queueRun = state.withLock { state in
            guard let index = state.jobs.firstIndex(where: { $0.job.name == name }) else { return false }
            state.jobs[index].due = min(state.jobs[index].due, now)
            state.jobs[index].pokes += 1
            guard state.started, !state.stopped, !state.runQueued else { return false }
            state.runQueued = true
            return true
        }
        if queueRun { queue.async { [self] in runDueJobs() } }
    }

    /// Runs `work` on `executor`, then `finish` with its result on the runtime's queue, with the
    /// store's calls bounded as a job's; ``runDue()`` and ``stop(waitingAtMost:)`` wait for both.
    package func runAside<Value: Sendable>(on executor: DispatchQueue, _ work: @escaping @Sendable () -> Value,
                                   then finish: @escaping @Sendable (Value) -> Void) {
        aside.enter()
        executor.async { [self] in
            let value = work()
            queue.async { [self] in
                StoreDeadline.run(until: .now + timeout) { finish(value) }
                aside.leave()
            }
        }
    }

    /// Runs every job that is due by the clock, and what they start aside, until none is due
    /// and nothing runs aside: tests move a `ManualClock`, then call this instead of waiting.
    /// Blocks; never call it on the runtime's queue.
    func runDue() {
        dispatchPrecondition(condition: .notOnQueue(queue))
        while true {
            queue.sync { runDueJobs() }
            aside.wait()
            let now = clock.now
            guard state.withLock({ $0.started && !$0.stopped && $0.jobs.contains { $0.due <= now } }) else { return }
        }
    }

    /// Runs no job from now on and waits, at most `limit` seconds, for the work under way aside
    /// (what is cut short there is the store's to retry: a webhook's lease ends), then for the
    /// job that runs.
    package func stop(waitingAtMost limit: TimeInterval) {
        state.withLock { $0.stopped = true }
        _ = aside.wait(timeout: .now() + limit)
        queue.sync {}
    }

    /// Runs the jobs due now, each once, then asks the clock to wake the runtime for the next
    /// (runtime's queue).
    private func runDueJobs() {
        let now = clock.now
        let due = state.withLock { state -> [(job: Job, pokes: Int)] in
            state.runQueued = false
            if let armed = state.armedFor, armed <= now { state.armedFor = nil }
            guard state.started, !state.stopped else { return [] }
            // A clock set back would hold every job back as long: their times move back with it.
            if let last = state.lastRun, now < last {
                for index in state.jobs.indices { state.jobs[index].due.addTimeInterval(now.timeIntervalSince(last)) }
                state.armedFor = nil
            }
            state.lastRun = now
            return state.jobs.filter { $0.due <= now }.sorted { $0.due < $1.due }.map { ($0.job, $0.pokes) }
        }
        for (job, pokes) in due {
            let next = StoreDeadline.run(until: .now + timeout) { job.run(now, self) }
            state.withLock { state in
                guard let index = state.jobs.firstIndex(where: { $0.job.name == job.name }) else { return }
                state.jobs[index].due = state.jobs[index].pokes == pokes ? next : min(next, now)
            }
        }
        arm()
    }

    /// Asks the clock to wake the runtime when the earliest job is due, unless it will already.
    private func arm() {
        let earliest = state.withLock { state -> Date? in
            guard state.started, !state.stopped, let earliest = state.jobs.map(\.due).min() else { return nil }
            if let armed = state.armedFor, armed <= earliest { return nil }
            state.armedFor = earliest
            return earliest
        }
        guard let earliest else { return }
        clock.wake(at: earliest) { [weak self] in
            guard let self else { return }
            queue.async { self.runDueJobs() }
        }
    }
}
