package import ConfigStore
package import Dispatch
package import EventLoop
import Synchronization

/// What a request may need read again from the store before it is answered.
package enum ReloadTarget: Hashable, Sendable {
    /// Projects and their API keys.
    case projects
    /// Principals, memberships, tokens and change policies.
    case access
    /// One console session, by id.
    case session(String)
    /// One template's active version.
    case template(TemplateKey)
}

/// Reloads off the loop thread, once for every request that waits on the same target, and
/// hands each waiting request back to the loop afterwards.
///
/// A request waits for one read that *begins after it arrived* (a read already under way may
/// predate a change acknowledged just before the request), and never past its deadline: then it
/// is answered from memory, whatever the read still does. Its deadline is
/// `store.requestTimeoutSeconds` from its arrival, or ``unreachableWait`` while the node knows
/// the store cannot be reached or is behind it (``CatchUpBoard``): a node that holds a version
/// answers at once, not after a time-out, when its database is gone, silent or too slow. While
/// the store is known unreachable, a request's read cannot begin before the read in flight ends,
/// so once that one has outlasted ``unreachableWait`` the request is answered from memory at
/// once: in a silent cut, where each read hangs for the whole time-out, only the requests of a
/// read's first 30 ms wait at all.
package final class ReloadGate: Sendable {
    typealias Waiter = @Sendable (_ reloaded: Bool) -> Void

    /// How long a request waits for the store while the node knows it cannot be reached.
    static let unreachableWait = Duration.milliseconds(30)

    private let loop: EventLoop
    /// Reads only (its lane of the store executor), so that a reload never waits behind a
    /// publish's commit.
    private let queue: DispatchQueue
    private let reads = Mutex<[ReloadTarget: Reads]>([:])
    /// How long a reload may take, and a request may wait (`store.requestTimeoutSeconds`).
    private let timeout: Duration
    private let board: CatchUpBoard
    /// The requests waiting, by deadline (loop thread only).
    private let deadlines: Deadlines

    /// One target's reads: whether one is queued or running, and who waits for the next.
    private struct Reads {
        var running = false
        /// When the read in flight was queued or began (while `running`).
        var since = ContinuousClock.now
        var next: [Waiting] = []
        /// Someone asked for a read without waiting for it.
        var wanted = false
        var reload: @Sendable () -> Bool
    }

    package init(loop: EventLoop, queue: DispatchQueue, timeout: Duration, board: CatchUpBoard) {
        self.loop = loop
        self.queue = queue
        self.timeout = timeout
        self.board = board
        deadlines = Deadlines(loop: loop)
    }

    /// Runs `waiter` on the loop after `target` was read again by `reload` (blocking; false
    /// when the store could not be read in time, and the request is then answered from memory),
    /// or at the request's deadline, whichever comes first. Call on the loop.
    /// - Parameter notAfter: the request's own deadline, when it waited already.
    func afterReload(of target: ReloadTarget, notAfter: ContinuousClock.Instant? = nil,
                     by reload: @escaping @Sendable () -> Bool, _ waiter: @escaping Waiter) {
        let now = ContinuousClock.now
        let brief = board.storeUnreachable || board.isBehind
        var deadline = now + (brief ? Self.unreachableWait : timeout)
        if let notAfter { deadline = min(deadline, notAfter) }
        // Only while the store is known unreachable: a node that is merely behind, or whose store
        // just answered a sibling, waits its brief time for a read that may yet come back.
        if board.storeUnreachable, let since = readInFlightSince(target) { deadline = min(deadline, since + Self.unreachableWait) }
        guard deadline > now else {
            request(target, by: reload)
            return waiter(false)
        }
        let waiting = Waiting(deadline: deadline, resume: waiter)
        enqueue(target, waiting, reload)
        deadlines.watch(waiting)
    }

    /// When the read of `target` in flight was queued or began, if one is.
    private func readInFlightSince(_ target: ReloadTarget) -> ContinuousClock.Instant? {
        reads.withLock { table in table[target].flatMap { $0.running ? $0.since : nil } }
    }

    /// Reads `target` again off the loop, for no request in particular (any thread).
    func request(_ target: ReloadTarget, by reload: @escaping @Sendable () -> Bool) {
        enqueue(target, nil, reload)
    }

    private func enqueue(_ target: ReloadTarget, _ waiting: Waiting?, _ reload: @escaping @Sendable () -> Bool) {
        let start = reads.withLock { table in
            var reads = table[target] ?? Reads(reload: reload)
            reads.reload = reload
            if let waiting { reads.next.append(waiting) } else { reads.wanted = true }
            let start = !reads.running
            if start { reads.since = .now }
            reads.running = true
            table[target] = reads
            return start
        }
        if start { run(target) }
    }

    private func run(_ target: ReloadTarget) {
        queue.async { [self] in
            // Whoever arrives from now on waits for the next read: this one may miss what was
            // acknowledged just before they arrived.
            let (batch, reload) = reads.withLock { table in
                let reads = table[target]!
                table[target]!.next = []
                table[target]!.wanted = false
                table[target]!.since = .now
                return (reads.next, reads.reload)
            }
            let began = CatchUpBoard.now
            let reloaded = StoreDeadline.run(until: .now + timeout, reload)
            board.recordAttempt(began: began, answered: reloaded)
            let again = reads.withLock { table in
                let reads = table[target]!
                guard reads.next.isEmpty, !reads.wanted else { return true }
                table.removeValue(forKey: target)
                return false
            }
            loop.execute { [loop] in Self.resume(batch[...], reloaded: reloaded, on: loop) }
            if again { run(target) }
        }
    }

    /// Requests resumed per loop iteration: after a publish thousands of fetches may wait on
    /// one reload, and the loop answers new connections and other work between the slices.
    static let resumeSlice = 64

    private static func resume(_ waiters: ArraySlice<Waiting>, reloaded: Bool, on loop: EventLoop) {
        for waiting in waiters.prefix(resumeSlice) { waiting.answer(reloaded: reloaded) }
        let rest = waiters.dropFirst(resumeSlice)
        guard !rest.isEmpty else { return }
        loop.deferUntilEndOfIteration { resume(rest, reloaded: reloaded, on: loop) }
    }
}

/// A request waiting for a read: answered once, by the read or by its deadline (loop thread
/// only; it crosses to the reload queue untouched).
private final class Waiting: @unchecked Sendable {
    let deadline: ContinuousClock.Instant
    private let resume: ReloadGate.Waiter
    private(set) var answered = false

    init(deadline: ContinuousClock.Instant, resume: @escaping ReloadGate.Waiter) {
        self.deadline = deadline
        self.resume = resume
    }

    func answer(reloaded: Bool) {
        guard !answered else { return }
        answered = true
        resume(reloaded)
    }
}

/// Answers from memory the requests whose deadline passed before their read ended: one timer,
/// set for the earliest deadline (loop thread only).
private final class Deadlines: @unchecked Sendable {
    private let loop: EventLoop
    /// In the order they were watched; deadlines of one kind of wait come in that order too.
    private var waiting: [Waiting] = []
    private var armedFor: ContinuousClock.Instant?

    init(loop: EventLoop) {
        self.loop = loop
    }

    func watch(_ request: Waiting) {
        waiting.append(request)
        arm(for: request.deadline)
    }

    private func arm(for deadline: ContinuousClock.Instant) {
        if let armedFor, armedFor <= deadline { return }
        armedFor = deadline
        let delay = max(.zero, ContinuousClock.now.duration(to: deadline))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(delay / .nanoseconds(1)))) { [self, loop] in
            loop.execute { self.sweep() }
        }
    }

    /// Answers every request past its deadline, forgets those answered, arms for the next.
    private func sweep() {
        armedFor = nil
        let now = ContinuousClock.now
        var earliest: ContinuousClock.Instant?
        var kept: [Waiting] = []
        for request in waiting where !request.answered {
            if request.deadline <= now {
                request.answer(reloaded: false)
            } else {
                kept.append(request)
                earliest = min(earliest ?? request.deadline, request.deadline)
            }
        }
        waiting = kept
        if let earliest { arm(for: earliest) }
    }
}
