import ConfigStore
import Dispatch

/// The worker's one serial queue for store work, off the loop thread, where every item ends by
/// a deadline: its store calls give up then (`StoreDeadline`), and a request not answered by its
/// deadline is refused then, whatever holds the queue, its work dropped: never run if still
/// queued, never committed if running. So a request is answered in bounded time even behind
/// work stuck on a store that went quiet, and a write whose client was told it failed never
/// happens later.
package final class StoreQueue: Sendable {
    private let queue: DispatchQueue
    /// How long an item may take from the moment it is queued (`store.requestTimeoutSeconds`).
    let timeout: Duration

    /// - Parameter queue: its lane of the store executor.
    init(queue: DispatchQueue, timeout: Duration) {
        self.queue = queue
        self.timeout = timeout
    }

    /// Runs background work (an audit entry, a session kept alive) with the store calls it
    /// makes bounded by `timeout` from now.
    package func async(_ work: @escaping @Sendable () -> Void) {
        let deadline = ContinuousClock.now + timeout
        queue.async { StoreDeadline.run(until: deadline, work) }
    }

    /// Runs a request's work by `deadline`; at the deadline, unless the work already answered
    /// or began to commit, `refuse` answers instead and the work is dropped (not run if still
    /// queued; rolled back before its commit if running). `work` answers only when its
    /// `AnswerClaim` says so.
    func async(by deadline: ContinuousClock.Instant, _ work: @escaping @Sendable (AnswerClaim) -> Void,
               refuse: @escaping @Sendable () -> Void) {
        let claim = AnswerClaim()
        let wait = ContinuousClock.now.duration(to: deadline)
        let nanoseconds = max(0, wait.components.seconds * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) {
            if claim.takeForRefusal() { refuse() }
        }
        queue.async {
            guard !claim.isRefused else { return }
            StoreDeadline.run(until: deadline, commitPermit: claim.takeForWork) { work(claim) }
        }
    }

    /// Waits until everything queued before has run.
    package func drain() {
        queue.sync {}
    }
}
