package import Dispatch

/// Where a worker calls its store: a few serial lanes, each making one store call at a time and
/// so holding at most one connection. The PostgreSQL pool is sized from them
/// (``connections(holdingListener:)``), so that no lane ever waits for another's connection: a
/// publish never queues behind a webhook attempt or a reload.
///
/// Nothing else calls the store. What runs beside a lane with no store call of its own (a
/// webhook's HTTP post, a sign-in's call to the identity provider, the event loop) hands its
/// store calls to a lane.
package final class StoreExecutor: Sendable {
    /// The lanes of a worker.
    enum Lane: String, CaseIterable {
        /// Requests' reads and writes, and what they commit (``StoreQueue``).
        case requests
        /// Reads of what changed, off the loop (``ReloadGate``).
        case reloads
        /// Catch-up passes, for the node's listener, on the worker's catch-up thread
        /// (``WorkerCatchUp``): never behind a request's reads.
        case catchUp
        /// Background jobs, webhook deliveries' store calls included (``JobRuntime``).
        case jobs
        /// The node's store listener thread, in the worker that holds it (`NodeListener`).
        case listener
    }

    package let requests: StoreQueue
    package let reloads: DispatchQueue
    package let jobs: DispatchQueue

    /// - Parameter timeout: how long a request's store work may take (`store.requestTimeoutSeconds`).
    package init(timeout: Duration) {
        requests = StoreQueue(queue: Self.queue(.requests), timeout: timeout)
        reloads = Self.queue(.reloads)
        jobs = Self.queue(.jobs)
    }

    /// How many connections a worker's store needs: one per lane, the listener's only in the
    /// worker that holds it.
    package static func connections(holdingListener: Bool) -> Int {
        Lane.allCases.filter { $0 != .listener || holdingListener }.count
    }

    private static func queue(_ lane: Lane) -> DispatchQueue {
        DispatchQueue(label: "remote-config.store.\(lane.rawValue)")
    }
}
