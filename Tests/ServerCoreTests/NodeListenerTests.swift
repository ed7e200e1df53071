import ConfigCore
@testable import ServerCore
import ConfigStore
import Foundation
import Glibc
import Logging
import Synchronization
import TestSupport
import Testing

/// The listener's I/O shell, on its thread: it relays what it is told, catches up on what was
/// committed while it was not connected, and makes a dropped or silent connection again; a
/// scripted listener over a pipe stands in for PostgreSQL. The decisions themselves are tested
/// on a manual clock in `ListenerStateMachineTests`.
@Suite final class NodeListenerTests {
    let directory: TemporaryDirectory
    let store: SQLiteConfigDatabase
    let key = TemplateKey(project: "demo", namespace: .client)
    private let started = Mutex<[NodeListener]>([])

    init() throws {
        directory = try TemporaryDirectory("rcs-listener")
        store = try SQLiteConfigDatabase(databasePath: directory.url.appendingPathComponent("db.sqlite").path,
                                         migrationsDirectory: try #require(Migrator.defaultMigrationsDirectory(engine: "sqlite")))
        try store.projects.upsert(StoredProject(id: "demo", number: "424242"))
    }

    deinit {
        for node in started.withLock({ $0 }) { node.stop() }
        store.close()
    }

    func publish() throws {
        _ = try store.templates.publish(project: "demo", namespace: .client, templateJSON: Array("{}".utf8), expectedVersion: nil,
                              metadata: PublishMetadata())
    }

    /// Starts a NodeListener on its thread; its relayed changes arrive on the returned stream.
    func start(_ listener: ScriptedListener, known: [TemplateKey: Int64], heartbeatSeconds: Int = 30) -> AsyncStream<StoreChange> {
        let (changes, continuation) = AsyncStream<StoreChange>.makeStream()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let node = NodeListener(listener: listener, store: store.templates, knownHeads: known, heartbeatSeconds: heartbeatSeconds,
                                logger: logger, metrics: ServerMetrics(worker: 0)) { continuation.yield($0) }
        started.withLock { $0.append(node) }
        node.start()
        return changes
    }

    @Test(.timeLimit(.minutes(1)))
    func relaysTheHeadsThatMovedOnConnectThenWhatItIsTold() async throws {
        try publish()
        try publish()
        let listener = ScriptedListener()
        var changes = start(listener, known: [key: 1]).makeAsyncIterator()
        #expect(await changes.next() == .template(key, version: 2))
        #expect(await changes.next() == .projects)
        #expect(await changes.next() == .access)
        listener.announce(.template(key, version: 3))
        #expect(await changes.next() == .template(key, version: 3))
        #expect(listener.acknowledgements >= 1, "what was relayed on connect is acknowledged")
    }

    @Test(.timeLimit(.minutes(1)))
    func aLostConnectionIsMadeAgainAndWhatWasMissedIsRelayed() async throws {
        try publish()
        let listener = ScriptedListener()
        var changes = start(listener, known: [key: 1]).makeAsyncIterator()
        #expect(await changes.next() == .projects)
        #expect(await changes.next() == .access)
        // Published while the connection is down: no notification ever comes for it.
        try publish()
        listener.breakConnection()
        #expect(await changes.next() == .template(key, version: 2))
        #expect(await changes.next() == .projects)
        #expect(await changes.next() == .access)
        #expect(listener.connections == 2)
    }

    @Test(.timeLimit(.minutes(1)))
    func anUnansweredHeartbeatDropsTheConnection() async throws {
        let listener = ScriptedListener(answersHeartbeats: false)
        var changes = start(listener, known: [:], heartbeatSeconds: 1).makeAsyncIterator()
        #expect(await changes.next() == .projects)
        #expect(await changes.next() == .access)
        // An interval in, a heartbeat goes out, stays unanswered for a second, and the
        // listener connects again (and resyncs, which relays .projects and .access once more).
        #expect(await changes.next() == .projects)
        #expect(await changes.next() == .access)
        #expect(listener.connections >= 2)
        #expect(listener.heartbeats >= 1)
    }
}

/// A `StoreChangeListener` over a pipe: `announce` queues a change and makes the pipe readable;
/// `breakConnection` makes the next `receive` fail as a lost connection does.
final class ScriptedListener: StoreChangeListener, @unchecked Sendable {
    // Guarded by `state`; the pipe descriptors are only replaced under it.
    private struct State {
        var pipe: (read: Int32, write: Int32)?
        var queued: [StoreChange] = []
        var broken = false
        var connections = 0
        var heartbeats = 0
        var awaiting = false
        var acknowledgements = 0
    }

    private let state = Mutex(State())
    private let answersHeartbeats: Bool

    init(answersHeartbeats: Bool = true) {
        self.answersHeartbeats = answersHeartbeats
    }

    var connections: Int { state.withLock { $0.connections } }
    var heartbeats: Int { state.withLock { $0.heartbeats } }
    var acknowledgements: Int { state.withLock { $0.acknowledgements } }
    var isAwaitingHeartbeat: Bool { state.withLock { $0.awaiting } }

    func connect() throws(StoreError) -> Int32 {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw StoreError.unavailable("pipe") }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        state.withLock { state in
            state.pipe = (fds[0], fds[1])
            state.broken = false
            state.connections += 1
        }
        return fds[0]
    }

    func announce(_ change: StoreChange) {
        state.withLock { state in
            state.queued.append(change)
            if let pipe = state.pipe { _ = Glibc.write(pipe.write, "x", 1) }
        }
    }

    func breakConnection() {
        state.withLock { state in
            state.broken = true
            if let pipe = state.pipe { _ = Glibc.write(pipe.write, "x", 1) }
        }
    }

    func receive() throws(StoreError) -> [StoreChange] {
        let (changes, broken): ([StoreChange], Bool) = state.withLock { state in
            if let pipe = state.pipe {
                var byte: UInt8 = 0
                while read(pipe.read, &byte, 1) == 1 {}
            }
            defer { state.queued = [] }
            return (state.queued, state.broken)
        }
        if broken { throw StoreError.unavailable("connection lost") }
        return changes
    }

    var receivedRevision: Int64 { 0 }

    func acknowledge(through revision: Int64) throws(StoreError) {
        state.withLock { $0.acknowledgements += 1 }
    }

    func sendHeartbeat() throws(StoreError) {
        state.withLock { state in
            state.heartbeats += 1
            state.awaiting = !answersHeartbeats
            if answersHeartbeats, let pipe = state.pipe { _ = Glibc.write(pipe.write, "x", 1) }
        }
    }

    func close() {
        state.withLock { state in
            if let pipe = state.pipe {
                Glibc.close(pipe.read)
                Glibc.close(pipe.write)
            }
            state.pipe = nil
            state.awaiting = false
        }
    }
}
