import PostgresTestSupport
import ConfigStore
import PostgresStore
import StoreTestSupport
import Testing

/// How long a write waits for the nodes' listeners to apply it.
@Suite final class AcknowledgementWaitTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    /// A write that waits for a listener which never acknowledges returns within
    /// `acknowledgementTimeout` of its start, its commit and clean-up included.
    @Test(.timeLimit(.minutes(1)))
    func aWriteThatWaitsInVainReturnsWithinTheAcknowledgementTimeOfItsStart() throws {
        let store = try PostgresFixture(database: database, acknowledgementTimeout: .milliseconds(500)).make()
        // Connected and alive (it just started), but it never acknowledges: a wedged node.
        let wedged = try database.connect(applicationName: "\(PostgresConfigDatabase.listenerNamePrefix) wedged")
        defer { wedged.close() }
        for tag in 1...4 {
            let start = ContinuousClock.now
            try store.publishTag(tag)
            let elapsed = ContinuousClock.now - start
            #expect(elapsed <= .milliseconds(500), "publish \(tag) took \(elapsed)")
            #expect(elapsed >= .milliseconds(400), "publish \(tag) waited for the wedged listener: \(elapsed)")
        }
    }
}
