package import Dispatch

/// Where a worker calls its store: a few serial lanes, each making one store call at a time and
/// so holding at most one connection. A lane that requests wait on is a thread of its own
/// (``LaneThread``), woken directly by the work that arrives. The PostgreSQL pool is sized from them
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
    /// A thread of its own, as the requests' lane: a request waits on either.
    package let reloads: LaneThread
    /// Background work, which no request waits for: a dispatch queue.
    package let jobs: DispatchQueue

    /// - Parameter timeout: how long a request's store work may take (`store.requestTimeoutSeconds`).
    package init(timeout: Duration) {
        requests = StoreQueue(lane: LaneThread(name: Self.name(.requests)), timeout: timeout)
        reloads = LaneThread(name: Self.name(.reloads))
        jobs = DispatchQueue(label: Self.name(.jobs))
    }

    /// How many connections a worker's store needs: one per lane, the listener's only in the
    /// worker that holds it.
    package static func connections(holdingListener: Bool) -> Int {
        Lane.allCases.filter { $0 != .listener || holdingListener }.count
    }

    private static func name(_ lane: Lane) -> String {
        "rcs-\(lane.rawValue)"
    }
}
