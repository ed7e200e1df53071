import ConfigStore
import Dispatch
import EventLoop
import Logging
import Synchronization

/// Notices what other workers (or processes) committed: by their datagrams at once, and by
/// polling SQLite's `data_version` once a second in case a datagram was lost. Also answers
/// the peers' questions and hands their answers to the application's gather.
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
                    case .published(let key, let version):
                        refresh(key, atLeast: version)
                    case .question(let from, let id, let question):
                        peers.send(.answer(from: peers.worker, id: id, payload: application.localAnswer(question)), to: from)
                    case .answer(let from, let id, let payload):
                        application.peerGather.received(payload, from: from, id: id)
                    }
                }
            }
        }
        loop.onTick { [self] in poll() }
    }

    private func refresh(_ key: HeadKey, atLeast version: Int64) {
        guard application.templates.currentVersion(key) < version else { return }
        application.storeQueue.async { [self] in
            if application.projects.project(key.project) == nil { try? application.reloadProjects() }
            guard let active = application.templates.reload(key) else { return }
            let number = active.versionNumber
            loop.execute { [self] in application.realtime.notify(key, version: number) }
        }
    }

    private let lastDataVersion = Mutex<Int64?>(nil)

    private func poll() {
        application.storeQueue.async { [self] in
            guard let dataVersion = try? application.store.dataVersion() else { return }
            let changed = lastDataVersion.withLock { last in
                defer { last = dataVersion }
                return last != nil && last != dataVersion
            }
            guard changed, let heads = try? application.store.heads() else { return }
            try? application.reloadProjects()
            let loaded = application.templates.loadedVersions
            for (key, version) in heads where (loaded[key] ?? 0) < version && loaded[key] != nil {
                refresh(key, atLeast: version)
            }
        }
    }
}
