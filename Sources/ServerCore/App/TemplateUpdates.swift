package import ConfigCore
package import ConfigStore
import EventLoop
package import Logging

/// The one path from "a template changed" to "every worker's registry is current, and each
/// held stream is told once" (docs/server-layout.md, "When a template changes").
///
/// One entry per source:
/// - ``committed(_:compiled:)`` and ``committedCanary(_:version:compiled:)``: this worker wrote
///   it (store queue);
/// - ``heard(_:version:)``: a peer worker, the node's store listener or the store poll says it
///   moved (any thread);
/// - ``reload(_:)``: a request found what it reads not current (read-your-writes, blocking).
///
/// One exit: `RealtimeHub.notify(_:)` on the worker's loop, for this worker's streams; the other
/// workers are told by datagram and take the second entry.
package final class TemplateUpdates: Sendable {
    private let store: any TemplateStore
    private let templates: TemplateRegistry
    private let counters: ChangeCounters
    private let reloads: ReloadGate
    private let realtime: RealtimeHub
    private let peers: PeerChannel?
    private let metrics: ServerMetrics
    /// Told of each commit here as its answer goes out, instead of at its next poll: webhook
    /// delivery's poke, which sends the events the commit wrote (wired by the composition).
    private let onCommit: @Sendable () -> Void
    private let logger: Logger
    /// Where a read that the store answered is recorded for the node (``CatchUpBoard/storeUnreachable``).
    private let board: CatchUpBoard

    package init(store: any TemplateStore, templates: TemplateRegistry, counters: ChangeCounters, reloads: ReloadGate,
         realtime: RealtimeHub, peers: PeerChannel?, metrics: ServerMetrics, board: CatchUpBoard,
         onCommit: @escaping @Sendable () -> Void, logger: Logger) {
        self.store = store
        self.board = board
        self.templates = templates
        self.counters = counters
        self.reloads = reloads
        self.realtime = realtime
        self.peers = peers
        self.metrics = metrics
        self.onCommit = onCommit
        self.logger = logger
    }

    /// Who must hear of a commit once its answer is on its way: webhook delivery, the other
    /// workers, then this worker's held streams (after the answer, so the publisher never waits
    /// for the fan-out).
    package struct Announcement: Sendable {
        fileprivate let key: TemplateKey
        fileprivate let version: Int64
        fileprivate let updates: TemplateUpdates

        package func send() {
            updates.onCommit()
            updates.peers?.broadcast(.published(key, version: version))
            let realtime = updates.realtime
            realtime.loop.execute { [key] in realtime.notify(key) }
        }
    }

    // MARK: This worker's commits

    /// A version this worker committed (a publish, a rollback, the end of a canary), before it
    /// is acknowledged: every worker reloads before it answers from now on, and this one serves
    /// it at once.
    /// - Parameter compiled: the publish's template, already compiled while it was validated.
    /// - Returns: what serves `stored` (nil when it cannot be compiled, logged), and who to
    ///   tell once the answer is sent.
    package func committed(_ stored: StoredVersion, compiled: CompiledTemplate? = nil) -> (ActiveTemplate?, Announcement) {
        let key = TemplateKey(project: stored.project, namespace: stored.namespace)
        counters.bump(key)
        metrics.recordPublish()
        let installed = templates.install(stored, compiled: compiled)
        // The answer describes this commit, even when a concurrent newer one is already served.
        let answered = installed?.versionNumber == stored.versionNumber ? installed : templates.compile(stored, compiled: compiled)
        return (answered, Announcement(key: key, version: stored.versionNumber, updates: self))
    }

    /// A canary this worker committed (a start, with its version, or a larger share), before it
    /// is acknowledged; as ``committed(_:compiled:)``.
    package func committedCanary(
        _ canary: StoredCanary, version: StoredVersion?, compiled: CompiledTemplate? = nil
    ) -> (CanaryServing?, Announcement) {
        let key = TemplateKey(project: canary.project, namespace: canary.namespace)
        counters.bump(key)
        let announcement = Announcement(key: key, version: canary.canaryVersion, updates: self)
        var template = templates.canary(key).flatMap { $0.version == canary.canaryVersion ? $0.template : nil }
        if template == nil {
            do {
                if let stored = try version ?? store.version(project: key.project, namespace: key.namespace, number: canary.canaryVersion) {
                    template = templates.compile(stored, compiled: compiled)
                }
            } catch {
                logger.error("cannot read the canary version to serve it", metadata: [
                    "project": "\(key.project)", "version": "\(canary.canaryVersion)", "error": "\(error)",
                ])
            }
        }
        guard let template else { return (nil, announcement) }
        let serving = CanaryServing(stored: canary, template: template)
        templates.installCanary(serving)
        return (serving, announcement)
    }

    // MARK: Heard from elsewhere

    /// Another worker, node or process committed `key` (`version`, when the message says): read
    /// it off the loop unless memory is already past it, then tell the held streams. A project
    /// this worker does not know yet is read, with its templates, by its first request.
    func heard(_ key: TemplateKey, version: Int64?) {
        // Equal is not past: a larger canary share keeps the canary's version.
        if let version, templates.progress(key).version > version { return }
        guard !templates.isCurrent(key), templates.knowsProject(key.project) else { return }
        reloads.request(.template(key)) { [self] in reload(key) }
    }

    // MARK: Read again

    /// Reads `key`'s template (and canary) again (blocking, never on the loop) and tells the
    /// held streams when it moved on; false when the store could not be read.
    func reload(_ key: TemplateKey) -> Bool {
        let before = templates.progress(key)
        let began = CatchUpBoard.now
        let reloaded = templates.reload(key)
        // Known to every worker before any stream is told of what was read: a sibling whose
        // own read is stuck since a cut then waits for a read of its own rather than answering
        // from memory what these streams are past.
        if reloaded { board.recordAttempt(began: began, answered: true) }
        if templates.progress(key) > before {
            let realtime = realtime
            realtime.loop.execute { realtime.notify(key) }
        }
        return reloaded
    }
}
