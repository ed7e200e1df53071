package import Foundation

/// One piece of background work of a worker (docs/server-layout.md, "Background work"): a name
/// for logs and tests, whether only the node's leader runs it, and what it does when due.
package struct Job: Sendable {
    /// Which workers run a job.
    package enum Scope: Sendable {
        /// Every worker: work the store shares out (webhook deliveries, leased one at a time).
        case everyWorker
        /// The leader only, the first worker of each node: work that every worker would repeat
        /// for nothing. Across nodes the store's conditional writes keep it done once (a request
        /// applies once, a canary is promoted once), as they do for concurrent API calls.
        case leaderOnly
    }

    let name: String
    let scope: Scope
    /// Does the work due at `now` (on the runtime's queue, with the store's calls bounded by a
    /// deadline) and says when the job is due next; the runtime may run it earlier when poked.
    let run: @Sendable (_ now: Date, _ runtime: JobRuntime) -> Date

    package init(_ name: String, scope: Scope, run: @escaping @Sendable (_ now: Date, _ runtime: JobRuntime) -> Date) {
        self.name = name
        self.scope = scope
        self.run = run
    }

    /// A job that does `work` every `interval` seconds, from the runtime's start.
    package static func every(_ interval: TimeInterval, _ name: String, scope: Scope, _ work: @escaping @Sendable (Date) -> Void) -> Job {
        Job(name, scope: scope) { now, _ in
            work(now)
            return now.addingTimeInterval(interval)
        }
    }
}
