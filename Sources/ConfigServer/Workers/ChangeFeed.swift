import ConfigStore
import Dispatch
import EventLoop
import Logging
import Synchronization

/// Notices what other workers, processes or nodes committed, and tells this worker's held
/// streams: by the peers' datagrams at once; by the node's store listener (first worker, stores
/// shared by several nodes) at once; by the shared change counters on every tick, in case a
/// datagram was lost; and by polling the store's change token (`store.pollIntervalSeconds`),
/// for commits no one announced. Also answers the peers' questions and hands their answers to
/// the application's gather.
final class ChangeFeed: Sendable {
    private let application: Application
    private let loop: EventLoop
    private let peers: PeerChannel?

    init(application: Application, loop: EventLoop, peers: PeerChannel?) {
        self.application = application
        self.loop = loop
        self.peers = peers
    }

    /// Starts watching (loop thread, or before the loop runs).
    /// - Parameter listener: the node's store listener, for the worker that holds it.
    func start(listener: (any StoreChangeListener)?) throws {
        if let listener {
            NodeListener(
                listener: listener, store: application.store, knownHeads: application.templates.loadedVersions,
                heartbeatSeconds: application.configuration.store.heartbeatSeconds, logger: application.logger,
                metrics: application.metrics
            ) { [self] change in relay(change) }.start()
        }
        if let peers {
            try loop.watchReadable(fd: peers.fd) { [self] in
                for message in peers.drain() {
                    switch message {
                    case .published(let key, _):
                        follow(key)
                    case .question(let from, let id, let question):
                        peers.send(.answer(from: peers.worker, id: id, payload: application.localAnswer(question)), to: from)
                    case .answer(let from, let id, let payload):
                        application.peerGather.received(payload, from: from, id: id)
                    }
                }
            }
        }
        let pollEvery = max(1, Int(application.configuration.store.pollIntervalSeconds.rounded()))
        var ticks = 0
        loop.onTick { [self] in
            for key in application.templates.changedKeys { follow(key) }
            ticks += 1
            if ticks % pollEvery == 0 { poll() }
            application.promoteDueCanaries()
        }
    }

    /// A commit the node's listener was told of (on the listener's thread, before it
    /// acknowledges): make every worker of this node check it before answering, then tell the
    /// held streams, as a publisher here does.
    private func relay(_ change: StoreChange) {
        switch change {
        case .projects:
            application.counters.bumpProjects()
        case .template(let key, let version):
            // Always: that this worker already read it says nothing of the others, which only
            // look again when the counter moves (for this node's own publish, one spare check).
            application.counters.bump(key)
            peers?.broadcast(.published(key, version: version))
            loop.execute { [self] in follow(key) }
        }
    }

    /// Brings a template up to date in this worker, loading it if it never served it: a worker
    /// keeps every template in memory, so that it can answer while the store cannot be read.
    /// Its streams are told by the reload.
    private func follow(_ key: TemplateKey) {
        let application = application
        // A project this worker does not know yet is read, with its templates, by its first
        // request (after the projects).
        guard !application.templates.isCurrent(key), application.templates.knowsProject(key.project) else { return }
        application.reloads.afterReload(of: .template(key), by: { application.reloadTemplate(key) }) { _ in }
    }

    private let lastToken = Mutex<StoreChangeToken?>(nil)
    private let wasAvailable = Atomic<Bool>(true)

    /// Logs only when the store's state changes: an outage must not flood the log.
    private func storeAvailable(_ available: Bool, error: StoreError?) {
        application.metrics.setStoreAvailable(available)
        application.storeHealth.isAvailable = available
        guard wasAvailable.exchange(available, ordering: .relaxed) != available else { return }
        if let error {
            application.logger.error("the store cannot be read; serving the versions known", metadata: ["error": "\(error)"])
        } else {
            application.logger.notice("the store can be read again")
        }
    }

    private func poll() {
        let application = application
        application.storeQueue.async { [self] in
            let token: StoreChangeToken
            do throws(StoreError) { token = try application.store.changeToken() } catch {
                storeAvailable(false, error: error)
                return
            }
            storeAvailable(true, error: nil)
            let changed = lastToken.withLock { last in
                defer { last = token }
                return last != nil && last != token
            }
            guard changed else { return }
            do {
                try application.reloadProjects()
                let heads = try application.store.heads()
                let loaded = application.templates.loadedVersions
                for (key, version) in heads where (loaded[key] ?? 0) < version {
                    // A commit no worker may have announced (another process's or node's, or
                    // one whose publisher has not acknowledged it): announce it before telling
                    // anyone. Always: that this worker is behind says nothing of the others.
                    application.counters.bump(key)
                    loop.execute { [self] in follow(key) }
                }
            } catch {
                application.logger.error("cannot read the store's changes", metadata: ["error": "\(error)"])
            }
        }
    }
}
