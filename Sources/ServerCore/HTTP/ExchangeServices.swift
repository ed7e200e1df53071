package import Logging

/// What every exchange of a worker answers through: the metrics that count its answer, the
/// audit log that keeps it, the store queue that computes answers which wait on the store
/// (and whose time-out is every request's deadline), the catch-up board that refuses writes
/// while the node is behind, and the log. One per worker, shared by its exchanges.
package final class ExchangeServices: Sendable {
    let metrics: ServerMetrics
    let audit: AuditTrail
    let storeQueue: StoreQueue
    let board: CatchUpBoard
    let logger: Logger

    package init(metrics: ServerMetrics, audit: AuditTrail, storeQueue: StoreQueue, board: CatchUpBoard, logger: Logger) {
        self.metrics = metrics
        self.audit = audit
        self.storeQueue = storeQueue
        self.board = board
        self.logger = logger
    }
}
