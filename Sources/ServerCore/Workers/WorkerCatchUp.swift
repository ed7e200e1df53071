import ConfigCore
package import ConfigStore
import Dispatch
import EventLoop
package import Logging
import Synchronization

/// A worker's side of the ``CatchUpBoard``: a thread of its own that sleeps on the board's epoch.
/// When the node's listener raises it, the thread wakes at once, reads again everything whose
/// change counter moved, the projects and any template with a head it never loaded, then reports
/// the epoch it read before it began. Nothing of the worker's event loop stands in between: a loop
/// busy with a refetch storm would look at the epoch only between its events, tens of
/// milliseconds later, and every writer on every node waits for the slowest worker.
package final class WorkerCatchUp: Sendable {
    private let board: CatchUpBoard
    private let worker: Int
    private let store: any TemplateStore
    private let templates: TemplateRegistry
    private let controlPlane: ControlPlane
    private let updates: TemplateUpdates
    private let timeout: Duration
    private let logger: Logger
    private let started = Atomic(false)
    private let stopping = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)

    /// How long a failed pass waits before it is tried again, unless the epoch moves first.
    static let retryMillis: Int32 = 1000

    package init(board: CatchUpBoard, worker: Int, store: any TemplateStore, templates: TemplateRegistry, controlPlane: ControlPlane,
         updates: TemplateUpdates, timeout: Duration, logger: Logger) {
        self.board = board
        self.worker = worker
        self.store = store
        self.templates = templates
        self.controlPlane = controlPlane
        self.updates = updates
        self.timeout = timeout
        self.logger = logger
    }

    /// Loads every template, then starts serving as caught up to the epoch read before the
    /// loads (blocking: at start, before the loop runs), and starts the thread. A listener that
    /// raised the epoch in between waits for this worker, whose thread catches up at once.
    package func preloadAndRegister() {
        let epoch = board.epoch
        templates.preload()
        board.report(worker, caughtUpTo: epoch)
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        startNamedThread("rcs-catch-up") { [self] in run() }
    }

    /// Ends the thread; a pass under way ends first (bounded by the store's time-out).
    package func stop() {
        guard started.load(ordering: .acquiring), !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        board.wakeWaiters()
        finished.wait()
    }

    private func run() {
        while !stopping.load(ordering: .acquiring) {
            let epoch = board.epoch
            guard epoch > board.caughtUp(worker) ?? -1 else {
                // The timeout only bounds how long a stop could go unseen: a raise wakes it.
                board.waitForRaise(from: epoch, timeoutMillis: Self.retryMillis)
                continue
            }
            let began = CatchUpBoard.now
            if StoreDeadline.run(until: .now + timeout, { readEverythingMarked() }) {
                board.report(worker, caughtUpTo: epoch)
                // The store answered (a failed pass may fail on a version it cannot compile: the
                // reads that time out say when the store does not answer).
                board.recordAttempt(began: began, answered: true)
            } else {
                board.waitForRaise(from: epoch, timeoutMillis: Self.retryMillis)
            }
        }
        finished.signal()
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
