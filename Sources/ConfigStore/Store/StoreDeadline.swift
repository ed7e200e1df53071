/// When the store work of the current request must be done: a store that talks to a server
/// gives up waiting for it then (`StoreError.unavailable`, or `outcomeUnknown` for a commit
/// sent and not answered), so that a request gets a definite answer in a bounded time.
///
/// A task-local value, so that it reaches every store call the work makes without a parameter
/// on each; outside a task it is bound to the thread (the store queue's, say) for the duration
/// of `run`. The SQLite store, which waits for nothing but its own file, ignores it.
public enum StoreDeadline {
    /// The deadline of the work running on this thread or task, if any.
    @TaskLocal public static var current: ContinuousClock.Instant?
    /// Asked by a store right before it commits: true when the request the work answers still
    /// waits for it (and from then on cannot be refused), false once it was refused.
    @TaskLocal static var commitPermit: (@Sendable () -> Bool)?

    /// Runs `body` with `deadline` as `current` and `commitPermit` as what a commit asks first.
    public static func run<Result>(until deadline: ContinuousClock.Instant, commitPermit: (@Sendable () -> Bool)? = nil,
                                   _ body: () throws -> Result) rethrows -> Result {
        try $commitPermit.withValue(commitPermit) { try $current.withValue(deadline, operation: body) }
    }

    /// Whether the work may commit now: a store calls it inside the transaction, just before the
    /// commit, and rolls back when it is false (the request was already answered as refused).
    public static func claimCommit() -> Bool {
        commitPermit?() ?? true
    }
}
