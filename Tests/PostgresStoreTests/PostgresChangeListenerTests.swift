import PostgresTestSupport
import ConfigCore
import ConfigStore
import Foundation
import Glibc
import PostgresStore
import Synchronization
import StoreTestSupport
import Testing
import TestSupport

/// The node's LISTEN connection, driven the way an event loop drives it: wait until the socket
/// is readable, then `receive()` without blocking.
///
/// Every blocking step (a connect, a write that waits for the listeners, a wait on the socket)
/// runs on a thread of its own that the test awaits (`onDedicatedThread`): Swift Testing runs
/// tests on the cooperative pool, one thread per core, and a test that blocked on it would hold
/// up the others and their time limits. The limits leave room for the first test of the run,
/// which may wait for the throw-away cluster to start.
@Suite final class PostgresChangeListenerTests {
    let database: TestDatabase
    let store: any ConfigDatabase

    init() async throws {
        (database, store) = try await onDedicatedThread {
            let database = try TestDatabase()
            return (database, try PostgresFixture(database: database).make())
        }
    }

    /// Receives until `done` holds for everything received so far, or 10 s pass.
    private static func receive(
        _ listener: any StoreChangeListener, socket: Int32, until done: @escaping @Sendable ([StoreChange]) -> Bool
    ) async throws -> [StoreChange] {
        try await onDedicatedThread {
            var received: [StoreChange] = []
            let deadline = ContinuousClock.now + .seconds(10)
            while !done(received), ContinuousClock.now < deadline {
                var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                received += try listener.receive()
            }
            return received
        }
    }

    /// The number of this database's backends named `applicationName` that `select` counts
    /// (`count(*)`, or `count(pg_terminate_backend(pid))` to end them).
    private func countBackends(_ applicationName: String, select: String = "count(*)") async throws -> Int64? {
        try await onDedicatedThread { [database] in
            try database.connect().queryFirst(
                "SELECT \(select) FROM pg_stat_activity WHERE application_name = $1", [.text(applicationName)]
            ) { $0.int64(at: 0) }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func announcesEveryCommitAndAnswersHeartbeats() async throws {
        let listener = try #require(store.makeChangeListener(name: "rcs-node-b"))
        defer { listener.close() }
        let socket = try await onDedicatedThread { try listener.connect() }
        #expect(try await countBackends("remote-config-listener rcs-node-b") == 1)

        try await onDedicatedThread { [store] in
            try store.publishTag(1)
            try store.publishTag(2, namespace: .server)
        }
        let published = try await Self.receive(listener, socket: socket) { $0.count >= 2 }
        #expect(published == [
            .template(TemplateKey(project: "p1", namespace: .client), version: 1),
            .template(TemplateKey(project: "p1", namespace: .server), version: 1),
        ])

        try listener.sendHeartbeat()
        #expect(listener.isAwaitingHeartbeat)
        try await onDedicatedThread { [store] in
            try store.projects.addAPIKey(project: "p1", keyHash: "h", name: "", environment: .production)
            try store.access.put(.token, id: "t1", record: [1])
        }
        let afterHeartbeat = try await Self.receive(listener, socket: socket) { $0.count >= 2 && !listener.isAwaitingHeartbeat }
        #expect(afterHeartbeat == [.projects, .access])
        #expect(!listener.isAwaitingHeartbeat)
    }

    /// Read-your-writes across nodes: a write returns only once every connected listener has
    /// applied it.
    @Test(.timeLimit(.minutes(2)))
    func aWriteReturnsOnlyOnceEveryConnectedListenerAcknowledgedIt() async throws {
        let patient = try await onDedicatedThread { [database] in
            try PostgresFixture(database: database, acknowledgementTimeout: .seconds(30)).make(addProject: false)
        }
        let listener = try #require(store.makeChangeListener(name: "rcs-node-d"))
        defer { listener.close() }
        let socket = try await onDedicatedThread { try listener.connect() }
        try listener.acknowledge()  // what it read on connecting
        _ = try await Self.receive(listener, socket: socket) { _ in true }

        let returned = Atomic(false)
        async let written: Void = onDedicatedThread {
            _ = try? patient.publishTag(1)
            returned.store(true, ordering: .releasing)
        }
        let heard = try await Self.receive(listener, socket: socket) { !$0.isEmpty }
        #expect(heard == [.template(TemplateKey(project: "p1", namespace: .client), version: 1)])
        // Told of the commit, not yet acknowledged: the writer is still waiting.
        let returnedBeforeAcknowledgement = returned.load(ordering: .acquiring)
        #expect(!returnedBeforeAcknowledgement)
        try listener.acknowledge()
        // The acknowledgement is read on the writer's connection; this one only drains its socket.
        _ = try await Self.receive(listener, socket: socket) { _ in returned.load(ordering: .acquiring) }
        let returnedAfterAcknowledgement = returned.load(ordering: .acquiring)
        #expect(returnedAfterAcknowledgement, "the write returned once the listener acknowledged it")
        try await written
    }

    @Test(.timeLimit(.minutes(2)))
    func aTerminatedListenerIsUnavailableAndConnectsAgain() async throws {
        let listener = try #require(store.makeChangeListener(name: "rcs-node-c"))
        defer { listener.close() }
        let socket = try await onDedicatedThread { try listener.connect() }
        #expect(try await countBackends("remote-config-listener rcs-node-c", select: "count(pg_terminate_backend(pid))") == 1)

        // The server's last words may come before the end of the connection.
        let error = try await #require(throws: StoreError.self) {
            _ = try await Self.receive(listener, socket: socket) { _ in false }
        }
        guard case .unavailable = error else {
            Issue.record("expected unavailable, got \(error)")
            return
        }
        listener.close()
        #expect(throws: StoreError.self) { try listener.sendHeartbeat() }

        let again = try await onDedicatedThread { try listener.connect() }
        _ = try await onDedicatedThread { [store] in try store.publishTag(1) }
        #expect(try await Self.receive(listener, socket: again) { !$0.isEmpty }
            == [.template(TemplateKey(project: "p1", namespace: .client), version: 1)])
    }
}
