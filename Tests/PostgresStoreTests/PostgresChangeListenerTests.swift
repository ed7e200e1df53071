import PostgresTestSupport
import ConfigCore
import ConfigStore
import Foundation
import Glibc
import PostgresStore
import Synchronization
import StoreTestSupport
import Testing

/// The node's LISTEN connection, driven the way an event loop drives it: wait until the socket
/// is readable, then `receive()` without blocking.
@Suite final class PostgresChangeListenerTests {
    let database: TestDatabase
    let store: any ConfigDatabase

    init() throws {
        database = try TestDatabase()
        store = try PostgresFixture(database: database).make()
    }

    /// Receives until `done` holds for everything received so far, or 10 s pass.
    private func receive(
        _ listener: any StoreChangeListener, socket: Int32, until done: ([StoreChange]) -> Bool
    ) throws -> [StoreChange] {
        var received: [StoreChange] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while !done(received), ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            received += try listener.receive()
        }
        return received
    }

    @Test(.timeLimit(.minutes(1)))
    func announcesEveryCommitAndAnswersHeartbeats() throws {
        let listener = try #require(store.makeChangeListener(name: "rcs-node-b"))
        defer { listener.close() }
        let socket = try listener.connect()
        let named = try database.connect().queryFirst(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'remote-config-listener rcs-node-b'"
        ) { $0.int64(at: 0) }
        #expect(named == 1)

        try store.publishTag(1)
        try store.publishTag(2, namespace: .server)
        let published = try receive(listener, socket: socket) { $0.count >= 2 }
        #expect(published == [
            .template(TemplateKey(project: "p1", namespace: .client), version: 1),
            .template(TemplateKey(project: "p1", namespace: .server), version: 1),
        ])

        try listener.sendHeartbeat()
        #expect(listener.isAwaitingHeartbeat)
        try store.projects.addAPIKey(project: "p1", keyHash: "h", name: "")
        let afterHeartbeat = try receive(listener, socket: socket) { !$0.isEmpty && !listener.isAwaitingHeartbeat }
        #expect(afterHeartbeat == [.projects])
        #expect(!listener.isAwaitingHeartbeat)
    }

    /// Read-your-writes across nodes: a write returns only once every connected listener has
    /// applied it.
    @Test(.timeLimit(.minutes(1)))
    func aWriteReturnsOnlyOnceEveryConnectedListenerAcknowledgedIt() throws {
        let patient = try PostgresFixture(database: database, acknowledgementTimeout: .seconds(30)).make(addProject: false)
        let listener = try #require(store.makeChangeListener(name: "rcs-node-d"))
        defer { listener.close() }
        let socket = try listener.connect()
        try listener.acknowledge()  // what it read on connecting
        _ = try receive(listener, socket: socket) { _ in true }

        let returned = Mutex(false)
        let writer = Thread {
            _ = try? patient.publishTag(1)
            returned.withLock { $0 = true }
        }
        writer.start()
        let heard = try receive(listener, socket: socket) { !$0.isEmpty }
        #expect(heard == [.template(TemplateKey(project: "p1", namespace: .client), version: 1)])
        // Told of the commit, not yet acknowledged: the writer is still waiting.
        #expect(!returned.withLock { $0 })
        try listener.acknowledge()
        let deadline = ContinuousClock.now + .seconds(10)
        while !returned.withLock({ $0 }), ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 10) > 0 { _ = try listener.receive() }
        }
        #expect(returned.withLock { $0 }, "the write returned once the listener acknowledged it")
        while writer.isExecuting { sched_yield() }
    }

    @Test(.timeLimit(.minutes(1)))
    func aTerminatedListenerIsUnavailableAndConnectsAgain() throws {
        let listener = try #require(store.makeChangeListener(name: "rcs-node-c"))
        defer { listener.close() }
        let socket = try listener.connect()
        let terminated = try database.connect().queryFirst(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'remote-config-listener rcs-node-c'"
        ) { $0.int64(at: 0) }
        #expect(terminated == 1)

        let error = try #require(throws: StoreError.self) {
            // The server's last words may come before the end of the connection.
            _ = try self.receive(listener, socket: socket) { _ in false }
        }
        guard case .unavailable = error else {
            Issue.record("expected unavailable, got \(error)")
            return
        }
        listener.close()
        #expect(throws: StoreError.self) { try listener.sendHeartbeat() }

        let again = try listener.connect()
        try store.publishTag(1)
        #expect(try receive(listener, socket: again) { !$0.isEmpty }
            == [.template(TemplateKey(project: "p1", namespace: .client), version: 1)])
    }
}
