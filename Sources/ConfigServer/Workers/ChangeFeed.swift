import ConfigStore
import Dispatch
import EventLoop
import Logging
import Synchronization

/// Notices what other workers (or processes) committed, and tells this worker's held streams:
/// by the peers' datagrams at once; by the shared change counters on every tick, in case a
/// datagram was lost; and by polling the store's change token once a second, for commits made
/// outside the worker group. Also answers the peers' questions and hands their answers to
/// the application's gather.
final class ChangeFeed: Sendable {
    private let application: Application
    private let loop: EventLoop

    init(application: Application, loop: EventLoop) {
        self.application = application
        self.loop = loop
    }

    /// Starts watching (loop thread, or before the loop runs).
    func start(peers: PeerChannel?) throws {
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
        loop.onTick { [self] in
            for key in application.templates.changedKeys { follow(key) }
            poll()
            application.promoteDueCanaries()
        }
    }

    /// Brings a template this worker serves up to date; its streams are told by the reload.
    private func follow(_ key: TemplateKey) {
        let application = application
        guard application.templates.isLoaded(key), !application.templates.isCurrent(key) else { return }
        application.reloads.afterReload(of: .template(key), by: { application.reloadTemplate(key) }) { _ in }
    }

    private let lastToken = Mutex<StoreChangeToken?>(nil)

    private func poll() {
        let application = application
        application.storeQueue.async { [self] in
            let token: StoreChangeToken
            do { token = try application.store.changeToken() } catch {
                application.logger.error("cannot poll the store for changes", metadata: ["error": "\(error)"])
                return
            }
            let changed = lastToken.withLock { last in
                defer { last = token }
                return last != nil && last != token
            }
            guard changed else { return }
            do {
                try application.reloadProjects()
                let heads = try application.store.heads()
                let loaded = application.templates.loadedVersions
                for (key, version) in heads where (loaded[key] ?? .max) < version {
                    // A commit no worker has announced yet (another process's, or one whose
                    // publisher has not acknowledged it): announce it before telling anyone.
                    if application.templates.isCurrent(key) { application.counters.bump(key) }
                    loop.execute { [self] in follow(key) }
                }
            } catch {
                application.logger.error("cannot read the store's changes", metadata: ["error": "\(error)"])
            }
        }
    }
}
