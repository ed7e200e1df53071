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

/// Which listeners a write waits for: only those that are connected and alive. A node whose
/// host vanished leaves a backend that PostgreSQL keeps for minutes; its writes must not wait
/// for it, and the node's restarted listener ends it.
@Suite final class ListenerLivenessTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    /// A listener that keeps heartbeating is waited for however long ago it connected.
    @Test(.timeLimit(.minutes(1)))
    func aListenerThatHeartbeatsIsWaitedForLongAfterItConnected() async throws {
        let store = try PostgresFixture(database: database, acknowledgementTimeout: .milliseconds(300)).make()
        let listener = try #require(store.makeChangeListener(name: "alive"))
        let driver = try ListenerDriver(listener, acknowledging: false)
        defer { driver.stop() }
        let start = ContinuousClock.now
        // Past three heartbeat intervals: only its heartbeats keep it counted.
        while ContinuousClock.now - start < ListenerLiveness.window + .seconds(1) {
            // On a thread of its own: the write's wait would hold one of the cooperative pool's.
            let waited = try await onDedicatedThread {
                let publish = ContinuousClock.now
                try store.publishTag(1)
                return ContinuousClock.now - publish
            }
            #expect(waited >= .milliseconds(250), "the write waited for the live listener")
        }
    }

    /// A node whose link to the database goes silent (its host vanished: no reset reaches
    /// PostgreSQL, which keeps its backend): the other nodes' writes wait for it no longer
    /// than its heartbeats stay recent, then return at once; the node's restarted listener,
    /// with the same name, ends the old backend.
    @Test(.timeLimit(.minutes(1)))
    func writesStopWaitingForAVanishedNodeAndItsRestartEndsTheOldSession() async throws {
        let serverPort = try #require(URLComponents(string: database.url)?.port)
        let name = "vanishing"
        let link = try FaultyLink(upstreamPort: serverPort, onlyConnectionsSending: "\(PostgresConfigDatabase.listenerNamePrefix) \(name)")
        defer { link.stop() }
        let writer = try PostgresFixture(database: database, acknowledgementTimeout: .seconds(2)).make()
        let vanishing = try PostgresConfigDatabase(url: try link.url(replacingPortOf: database.url),
                                                  migrationsDirectory: PostgresTestServer.migrations)
        defer { vanishing.close() }
        let admin = try database.connect()
        let driver = try ListenerDriver(try #require(vanishing.makeChangeListener(name: name)), acknowledging: true)
        defer { driver.stop() }
        let oldSession = try #require(try admin.queryFirst(
            "SELECT pid FROM pg_stat_activity WHERE application_name = $1", [.text("\(PostgresConfigDatabase.listenerNamePrefix) \(name)")]
        ) { $0.int64(at: 0) })

        link.set(.silent)
        let timings = try await onDedicatedThread {
            try RecoveryTimings(since: .now, fast: .milliseconds(200), limit: .seconds(14)) { index in
                _ = try writer.publishTag(index + 1)
            }
        }
        let report = timings.report("publishes after a node's link went silent")
        #expect(timings.fastInARow == 5, "\(report)")
        #expect(timings.fastAgain < .seconds(10), "\(report)")
        #expect(try admin.queryFirst("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", [.integer(oldSession)]) { $0.int64(at: 0) } == 1,
                "PostgreSQL still holds the vanished node's backend")

        // The node comes back (here directly, not through the silent link) under the same name.
        let restarted = try #require(writer.makeChangeListener(name: name))
        defer { restarted.close() }
        // Its connect returns once its predecessor's backend is gone.
        _ = try await onDedicatedThread { try restarted.connect() }
        #expect(try admin.queryFirst("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", [.integer(oldSession)]) { $0.int64(at: 0) } == 0,
                "the restarted listener ended the old backend")
        #expect(try admin.queryFirst(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", [.text("\(PostgresConfigDatabase.listenerNamePrefix) \(name)")]
        ) { $0.int64(at: 0) } == 1)
    }

    /// A listener's session tells PostgreSQL to give up on a silent peer within tens of
    /// seconds; the server accepts each setting (on TCP; it ignores them on a Unix socket).
    @Test func theListenerSessionSettingsEndADeadPeersBackendWithinAMinute() throws {
        let connection = try database.connect()
        for statement in PostgresChangeListener.sessionSettings {
            try connection.execute(statement)
        }
        // In the settings' own units: seconds, and milliseconds for tcp_user_timeout.
        func setting(_ name: String) throws -> Int {
            try #require(try connection.queryFirst("SELECT setting::int FROM pg_settings WHERE name = $1", [.text(name)]) {
                Int($0.int64(at: 0))
            })
        }
        let (idle, interval, count) = (try setting("tcp_keepalives_idle"), try setting("tcp_keepalives_interval"), try setting("tcp_keepalives_count"))
        #expect(idle > 0 && interval > 0 && count > 0 && idle + interval * count <= 60, "keepalives give up after \(idle + interval * count) s")
        let userTimeout = try setting("tcp_user_timeout")
        #expect(userTimeout > 0 && userTimeout <= 60_000, "tcp_user_timeout \(userTimeout) ms")
    }
}

/// Drives a listener as a node's listener thread would: reads what its socket brings,
/// acknowledges (when told to) and sends a heartbeat every `ListenerLiveness.heartbeatInterval`.
final class ListenerDriver: Sendable {
    private let listener: any StoreChangeListener
    private let stopped = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)

    init(_ listener: any StoreChangeListener, acknowledging: Bool) throws {
        self.listener = listener
        let socket = try listener.connect()
        if acknowledging { try listener.acknowledge() }
        let thread = Thread { [self] in
            var nextHeartbeat = ContinuousClock.now + ListenerLiveness.heartbeatInterval
            while !stopped.load(ordering: .relaxed) {
                var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, 50) > 0 {
                    guard (try? listener.receive()) != nil else { break }
                    if acknowledging, (try? listener.acknowledge()) == nil { break }
                }
                if ContinuousClock.now >= nextHeartbeat, !listener.isAwaitingHeartbeat {
                    guard (try? listener.sendHeartbeat()) != nil else { break }
                    nextHeartbeat = ContinuousClock.now + ListenerLiveness.heartbeatInterval
                }
            }
            finished.signal()
        }
        thread.start()
    }

    /// Ends the thread, then closes the listener.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        finished.wait()
        listener.close()
    }
}
