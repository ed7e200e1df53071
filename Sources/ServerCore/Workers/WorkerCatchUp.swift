import ConfigCore
package import ConfigStore
package import Dispatch
package import Logging
import Synchronization

/// A worker's side of the ``CatchUpBoard``: when the node's listener raised the epoch, reads
/// again (off the loop) everything whose change counter moved, the projects and any template
/// with a head it never loaded, then reports the epoch it read before it began. Asked by the
/// listener's datagram, by the listener itself in its worker, and on every tick in case a
/// datagram was lost.
package final class WorkerCatchUp: Sendable {
    private let board: CatchUpBoard
    private let worker: Int
    private let store: any TemplateStore
    private let templates: TemplateRegistry
    private let controlPlane: ControlPlane
    private let updates: TemplateUpdates
    private let timeout: Duration
    private let logger: Logger
    /// Its own lane of the store executor: neither waits behind the other's reads, a request's
    /// or a catch-up's.
    private let queue: DispatchQueue
    /// A pass is queued or running; another request then only makes it look again.
    private let scheduled = Atomic(false)
    /// The epoch the last pass began at: a pass that failed is tried again on the tick, not
    /// at every look between events.
    private let attempted = Atomic<Int64>(-1)

    package init(board: CatchUpBoard, worker: Int, store: any TemplateStore, templates: TemplateRegistry, controlPlane: ControlPlane,
         updates: TemplateUpdates, queue: DispatchQueue, timeout: Duration, logger: Logger) {
        self.board = board
        self.queue = queue
        self.worker = worker
        self.store = store
        self.templates = templates
        self.controlPlane = controlPlane
        self.updates = updates
        self.timeout = timeout
        self.logger = logger
    }

    /// Loads every template, then starts serving as caught up to the epoch read before the
    /// loads (blocking: at start, before the loop runs). A listener that raised the epoch in
    /// between waits for this worker, which looks again at once.
    package func preloadAndRegister() {
        let epoch = board.epoch
        templates.preload()
        board.report(worker, caughtUpTo: epoch)
        requestPass()
    }

    /// As ``requestPass()``, only when the epoch moved past the last pass's: a look cheap enough
    /// to make between the events of a busy loop, which would otherwise hear the listener's
    /// datagram only after its whole batch (tens of milliseconds in a refetch storm, each one
    /// a wait for every writer on every node).
    func requestPassIfRaised() {
        guard board.epoch > attempted.load(ordering: .relaxed) else { return }
        requestPass()
    }

    /// Catches up off the loop if the epoch moved past this worker's report (any thread).
    func requestPass() {
        guard board.epoch > board.caughtUp(worker) ?? -1, !scheduled.exchange(true, ordering: .acquiringAndReleasing)
        else { return }
        queue.async { [self] in
            scheduled.store(false, ordering: .releasing)
            let epoch = board.epoch
            guard epoch > board.caughtUp(worker) ?? -1 else { return }
            attempted.store(epoch, ordering: .relaxed)
            let began = CatchUpBoard.now
            if StoreDeadline.run(until: .now + timeout, { readEverythingMarked() }) {
                board.report(worker, caughtUpTo: epoch)
                // The store answered (a failed pass may fail on a version it cannot compile: the
                // reads that time out say when the store does not answer).
                board.recordAttempt(began: began, answered: true)
            }
            // A raise during the pass, or a failed pass: the tick or the next datagram asks again.
        }
    }

    /// Reads what moved; false when some of it could not be read.
    private func readEverythingMarked() -> Bool {
        do {
            try controlPlane.reloadStale()
            var complete = true
            for key in templates.changedKeys where !updates.reload(key) { complete = false }
            let loaded = templates.loadedVersions
            for (key, version) in try store.heads() where (loaded[key] ?? 0) < version {
                if !updates.reload(key) { complete = false }
            }
            return complete
        } catch {
            logger.warning("cannot catch up with the store's changes", metadata: ["error": "\(error)"])
            return false
        }
    }
}
