import ConfigStore
import Dispatch

/// The worker's one serial queue for store work, off the loop thread, where every item ends by
/// a deadline: its store calls give up then (`StoreDeadline`), and a request's item that waited
/// past its deadline is not run at all, only answered. So an item ends at most `timeout` after it
/// was queued, even behind others stuck on a store that went quiet, and a write whose client was
/// told it failed never runs later.
final class StoreQueue: Sendable {
    private let queue = DispatchQueue(label: "remote-config.store")
    /// How long an item may take from the moment it is queued (`store.requestTimeoutSeconds`).
    let timeout: Duration

    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Runs background work (a poll, an audit entry, a scheduled step) with the store calls it
    /// makes bounded by `timeout` from now.
    func async(_ work: @escaping @Sendable () -> Void) {
        let deadline = ContinuousClock.now + timeout
        queue.async { StoreDeadline.run(until: deadline, work) }
    }

    /// Runs a request's work by `deadline`, or `expired` instead when the item waited past it.
    func async(by deadline: ContinuousClock.Instant, _ work: @escaping @Sendable () -> Void,
               expired: @escaping @Sendable () -> Void) {
        queue.async {
            guard ContinuousClock.now < deadline else { return expired() }
            StoreDeadline.run(until: deadline, work)
        }
    }

    /// Waits until everything queued before has run.
    func drain() {
        queue.sync {}
    }
}
