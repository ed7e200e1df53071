import PostgresTestSupport
import ConfigCore
import ConfigStore
import Dispatch
import Foundation
import PostgresStore
import StoreTestSupport
import Synchronization
import Testing
import TestSupport

/// Every announced write notifies `rcs_changes`, inside its transaction; no other write does.
@Suite final class PostgresNotificationTests {
    let database: TestDatabase
    let store: any ConfigDatabase
    let listener: PostgresConnection

    init() throws {
        database = try TestDatabase()
        store = try PostgresFixture(database: database).make()
        listener = try database.connect(applicationName: "rcs-listener")
        try listener.listen(PostgresConfigDatabase.notificationChannel)
    }

    deinit {
        listener.close()
    }

    private var lastRevision: Int64 = 0

    /// The next notifications' changes; each carries the write's `store_revision` first, one
    /// more than the previous write's.
    private func nextPayloads(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        try listener.waitForNotifications(timeout: .seconds(10)).map { notification in
            let parts = notification.payload.split(separator: "\t", maxSplits: 1)
            let revision = try #require(Int64(parts.first ?? ""), sourceLocation: sourceLocation)
            #expect(lastRevision == 0 || revision == lastRevision + 1, sourceLocation: sourceLocation)
            lastRevision = revision
            return parts.count == 2 ? String(parts[1]) : ""
        }
    }

    @Test func writesNotifyWhatChanged() throws {
        _ = try listener.consumeNotifications()  // the fixture's own project write
        try store.publishTag(1)
        #expect(try nextPayloads() == ["p1\tfirebase\t1"])
        try store.publishTag(1, namespace: .server)
        #expect(try nextPayloads() == ["p1\tfirebase-server\t1"])
        _ = try store.templates.publishCanary(
            project: "p1", namespace: .client, templateJSON: [], expectedVersion: 1, microPercent: 1, seed: "s",
            promoteAt: nil, metadata: PublishMetadata())
        #expect(try nextPayloads() == ["p1\tfirebase\t2"])
        _ = try store.templates.promoteCanary(project: "p1", namespace: .client, expectedCanary: 2, metadata: PublishMetadata())
        #expect(try nextPayloads() == ["p1\tfirebase\t3"])
        _ = try store.templates.rollback(project: "p1", namespace: .client, to: 1, metadata: PublishMetadata())
        #expect(try nextPayloads() == ["p1\tfirebase\t4"])

        // A refused write commits nothing and notifies nothing: the next payload is the next write's.
        #expect(throws: StoreError.versionMismatch(current: 4)) {
            try self.store.templates.publish(project: "p1", namespace: .client, templateJSON: [], expectedVersion: 1,
                                   metadata: PublishMetadata())
        }
        try store.projects.addAPIKey(project: "p1", keyHash: "h", name: "", environment: .production)
        #expect(try nextPayloads() == [StoreChange.projects.payload])
        try store.projects.upsert(StoredProject(id: "p2", number: "2"))
        #expect(try nextPayloads() == [StoreChange.projects.payload])
        try store.access.put(.principal, id: "ada", record: [1])
        #expect(try nextPayloads() == [StoreChange.access.payload])
        try store.access.putChangePolicy(StoredChangePolicy(project: "p1", namespace: .client, record: [1]))
        #expect(try nextPayloads() == [StoreChange.access.payload])
    }

    /// A sign-in, a session's keep-alive, an audit entry: what no worker keeps in memory neither
    /// moves the revision nor notifies; a session's end does both, so that it ends everywhere.
    @Test func writesOfWhatNoWorkerKeepsNotifyNothing() throws {
        _ = try listener.consumeNotifications()
        let revision = try store.changeToken()
        try store.access.put(.session, id: "ses1", record: [1])
        #expect(try store.access.update(.session, id: "ses1", record: [2]))
        try store.audit.append(AuditEntry(time: Date(), actorID: "a", actorName: "A", origin: "API", requestID: "r",
                                          clientAddress: "127.0.0.1", action: "x", outcome: "ok"))
        #expect(try store.signIns.putAttempt(stateHash: "s", record: [1], expireTime: Date().addingTimeInterval(60), maxPending: 5))
        _ = try store.changeRequests.insert(StoredChangeRequest(project: "p1", namespace: .client, status: "open", record: [1]))
        #expect(try listener.waitForNotifications(timeout: .milliseconds(200)).isEmpty)
        #expect(try store.changeToken() == revision)
        try store.access.delete(.session, id: "ses1")
        #expect(try nextPayloads() == [StoreChange.access.payload])
    }

    @Test(.timeLimit(.minutes(1)))
    func theNotificationArrivesOnlyOnceThePublishCommitted() async throws {
        _ = try listener.consumeNotifications()
        // A deferred constraint trigger runs inside COMMIT, after every statement of the publish
        // (its pg_notify included) and before the notification is sent; make it wait for an
        // advisory lock the test holds.
        let gate = try database.connect()
        try gate.executeScript(
            """
            CREATE FUNCTION wait_for_gate() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_advisory_xact_lock_shared(4242); RETURN NULL; END $$;
            CREATE CONSTRAINT TRIGGER publish_gate AFTER INSERT ON template_versions
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION wait_for_gate();
            """)
        try gate.execute("SELECT pg_advisory_lock(4242)")

        let store = self.store
        // The store asks whether it may commit right before its COMMIT, which the gate holds.
        let committing = DispatchSemaphore(value: 0)
        // Started on a thread of its own at once: a child task would first need a thread of the
        // cooperative pool, which the suites running beside this one may all hold.
        let outcome = Mutex<String?>(nil), finished = DispatchSemaphore(value: 0)
        Thread {
            let result: String
            do {
                let version = try StoreDeadline.run(until: .now + .seconds(30), commitPermit: { committing.signal(); return true }) {
                    try store.publishTag(1)
                }
                result = "published \(version.versionNumber)"
            } catch {
                result = "\(error)"
            }
            outcome.withLock { $0 = result }
            finished.signal()
        }.start()

        // While the commit waits, the version is invisible and nothing is delivered.
        #expect(try await onDedicatedThread { committing.wait(timeout: .now() + 20) } == .success, "the publish reached its commit")
        #expect(try listener.waitForNotifications(timeout: .milliseconds(300)).isEmpty)
        #expect(try store.templates.headState(project: "p1", namespace: .client).active == nil)

        try gate.execute("SELECT pg_advisory_unlock(4242)")
        let delivered = try listener.waitForNotifications(timeout: .seconds(10))
        #expect(delivered.map { $0.payload.split(separator: "\t", maxSplits: 1).last.map(String.init) } == ["p1\tfirebase\t1"])
        // Delivered after the commit: the version is already visible to everyone.
        #expect(try store.templates.headState(project: "p1", namespace: .client).active == 1)
        #expect(try await onDedicatedThread { finished.wait(timeout: .now() + 30) } == .success)
        #expect(outcome.withLock { $0 } == "published 1")
    }
}
