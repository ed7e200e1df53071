package import ConfigStore
package import EventLoop
package import Logging
import Synchronization

/// Notices what other workers, processes or nodes committed and hands it to the worker's one
/// path for changes (`TemplateUpdates.heard`): from the node's store listener (first worker,
/// stores shared by several nodes) at once; from the shared change counters on every tick, in
/// case a peer's datagram was lost; and by polling the store's change token, for commits no one
/// announced: the job `store poll` of every worker (``pollJob``), every `store.pollIntervalSeconds`
/// of the worker's clock, which also keeps the store's availability (`/readyz`, the metrics).
/// Peers' datagrams arrive through `PeerMailbox`.
package final class ChangeFeed: Sendable {
    static let pollJobName = "store poll"

    private let store: any ConfigDatabase
    private let updates: TemplateUpdates
    private let templates: TemplateRegistry
    private let controlPlane: ControlPlane
    private let counters: ChangeCounters
    private let board: CatchUpBoard
    private let peers: PeerChannel?
    private let health: StoreHealth
    private let metrics: ServerMetrics
    private let logger: Logger
    private let loop: EventLoop
    private let settings: StoreSettings
    private let lastToken = Mutex<StoreChangeToken?>(nil)
    private let wasAvailable = Atomic<Bool>(true)

    package init(store: any ConfigDatabase, updates: TemplateUpdates, templates: TemplateRegistry, controlPlane: ControlPlane,
         counters: ChangeCounters, board: CatchUpBoard, peers: PeerChannel?, health: StoreHealth, metrics: ServerMetrics, logger: Logger,
         loop: EventLoop, settings: StoreSettings) {
        self.store = store
        self.updates = updates
        self.templates = templates
        self.controlPlane = controlPlane
        self.counters = counters
        self.board = board
        self.peers = peers
        self.health = health
        self.metrics = metrics
        self.logger = logger
        self.loop = loop
        self.settings = settings
    }

    /// The job that polls the store's change token: it reads the store, so it runs on the job
    /// runtime's queue (the store executor's jobs lane) when the worker's clock says it is due.
    package var pollJob: Job {
        .every(settings.pollIntervalSeconds, Self.pollJobName, scope: .everyWorker) { [self] _ in poll() }
    }

    /// Starts watching (before the loop runs); the store poll is the job runtime's (``pollJob``).
    /// - Parameter listener: the node's store listener, for the worker that holds it.
    package func start(listener: (any StoreChangeListener)?) {
        if let listener {
            NodeListener(
                listener: listener, store: store.templates, knownHeads: templates.loadedVersions,
                heartbeatSeconds: settings.heartbeatSeconds, logger: logger, metrics: metrics,
                present: { [counters, board] present in
                    // A node behind its store serves what it holds without asking the store
                    // (it acknowledged nothing newer); one whose listener is away asks first.
                    counters.setListenerAbsent(!present && !board.isBehind)
                    if present { board.recordAttempt(began: CatchUpBoard.now, answered: true) }
                },
                workers: nodeWorkers,
                // A lost connection (an error, a heartbeat unanswered): requests needing the
                // store wait for it only briefly until it answers again.
                lost: { [board] in board.recordAttempt(began: CatchUpBoard.now, answered: false) }
            ) { [self] change in relay(change) }.start()
        }
        // Loop work, not a job: it reads the group's counters in shared memory and makes no
        // store call, so a lost datagram is noticed within a tick, never behind the jobs' store calls.
        loop.onTick { [self] in
            for key in templates.changedKeys { updates.heard(key, version: nil) }
        }
    }

    /// A commit the node's listener was told of (on the listener's thread, before it
    /// acknowledges): every worker of this node checks it before answering from now on, as
    /// after a commit here; then the workers read it and tell their streams.
    private func relay(_ change: StoreChange) {
        switch change {
        case .projects:
            counters.bump(.projects)
        case .access:
            counters.bump(.access)
        case .template(let key, let version):
            // Always: that this worker already read it says nothing of the others, which only
            // look again when the counter moves (for this node's own publish, one spare check).
            counters.bump(key)
            peers?.broadcast(.published(key, version: version))
            updates.heard(key, version: version)
        }
    }

    /// What the node's listener asks of this node's workers (on its thread) before it
    /// acknowledges: every serving worker reads what was relayed (`CatchUpBoard`), within three
    /// quarters of the time a writer waits for this node, so that it can still acknowledge in
    /// time. After a connect, every worker first reads everything once more: what it loaded
    /// while the node was not listening may predate commits this node was not waited for.
    private var nodeWorkers: NodeWorkers {
        NodeWorkers(
            beginCatchUp: { [self] afterConnect in
                if afterConnect { counters.bumpAll() }
                // Wakes every worker's catch-up thread (`WorkerCatchUp`).
                return board.raiseEpoch()
            },
            workersBehind: { [board, peers] epoch in board.workersBehind(epoch, workers: peers?.workers ?? 1) },
            setBehind: { [self] behind, late in
                guard behind != board.isBehind else { return }
                if behind {
                    logger.warning("""
                        this node's workers cannot read what the store announced in time; it acknowledges nothing, \
                        takes no writes and serves what it holds until they catch up
                        """, metadata: ["workers": "\(late)"])
                } else {
                    logger.notice("this node's workers caught up with the store; acknowledging again")
                }
                board.isBehind = behind
                metrics.setNodeBehind(behind)
            },
            deadlineMillis: Int64(settings.acknowledgementSeconds * 750))
    }

    /// Logs only when the store's state changes: an outage must not flood the log.
    private func storeAvailable(_ available: Bool, error: StoreError?, attemptBegan began: Int64) {
        metrics.setStoreAvailable(available)
        health.isAvailable = available
        board.recordAttempt(began: began, answered: available)
        guard wasAvailable.exchange(available, ordering: .relaxed) != available else { return }
        if let error {
            logger.error("the store cannot be read; serving the versions known", metadata: ["error": "\(error)"])
        } else {
            logger.notice("the store can be read again")
        }
    }

    /// Reads the store's change token and, when it moved, what changed (the jobs lane, with the
    /// job's deadline).
    private func poll() {
        let token: StoreChangeToken
        let began = CatchUpBoard.now
        do throws(StoreError) { token = try store.changeToken() } catch {
            storeAvailable(false, error: error, attemptBegan: began)
            return
        }
        storeAvailable(true, error: nil, attemptBegan: began)
        let changed = lastToken.withLock { last in
            defer { last = token }
            return last != nil && last != token
        }
        guard changed else { return }
        do {
            for scope in ControlPlaneScope.allCases { try controlPlane.reload(scope) }
            let heads = try store.templates.heads()
            let loaded = templates.loadedVersions
            for (key, version) in heads where (loaded[key] ?? 0) < version {
                // A commit no worker may have announced (another process's or node's, or
                // one whose publisher has not acknowledged it): announce it before telling
                // anyone. Always: that this worker is behind says nothing of the others.
                counters.bump(key)
                updates.heard(key, version: version)
            }
        } catch {
            logger.error("cannot read the store's changes", metadata: ["error": "\(error)"])
        }
    }
}
