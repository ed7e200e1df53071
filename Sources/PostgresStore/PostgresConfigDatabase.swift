public import ConfigCore
public import ConfigStore
public import Foundation

/// `ConfigDatabase` on a PostgreSQL server, so that several nodes can share one database;
/// docs/postgresql.md tells how it keeps the contract across nodes.
///
/// Every method blocks its thread (keep it off event loops) and runs on a small pool of
/// connections, each replaced on its next use after it broke. Every write to a template first
/// locks the template's `template_heads` row, so that its writers run one after the other on
/// any number of nodes; every announced write increments `store_revision` (the change token)
/// and, when it commits, notifies `notificationChannel`. The stores' rules and SQL are shared
/// with SQLite (`DatabaseEngine+Stores`); this type gives them its connections.
public final class PostgresConfigDatabase: ConfigDatabase, DatabaseEngine {
    /// The channel every announced write notifies when it commits, with the new `store_revision`, a tab
    /// and `StoreChange.payload` as the payload.
    public static let notificationChannel = "rcs_changes"
    /// The channel a listener notifies after it recorded an acknowledgement, so that a writer
    /// waiting for it wakes at once instead of polling.
    public static let acknowledgementChannel = "rcs_acks"
    /// How every listener names itself on the server (`application_name`), so that a writer
    /// finds the listeners it waits for.
    public static let listenerNamePrefix = "remote-config-listener"

    public let retention: Int
    /// Where the store connects, printable (no password).
    public let settings: PostgresConnectionSettings
    package let clock: @Sendable () -> Date
    let onNotice: @Sendable (String) -> Void
    /// How long a write waits for the nodes' listeners to apply it.
    let acknowledgementTimeout: Duration
    /// How long a call may wait for the server when the caller set no `StoreDeadline`.
    let operationTimeout: Duration
    let pool: PostgresConnectionPool

    /// Connects, applies the migrations found in `migrationsDirectory` and opens the pool.
    /// - Parameters:
    ///   - url: a `postgresql://` URL or a conninfo string; keepalive, timeout and
    ///     `application_name` settings are added where it gives none.
    ///   - migrationsDirectory: the PostgreSQL migrations (`migrations/postgres`).
    ///   - retention: versions kept per (project, namespace), at least 1.
    ///   - connections: the pool size: how many threads may call the store at once, at least 1
    ///     (a server's worker: one per lane of its store executor).
    ///   - acknowledgementTimeout: how long a write waits for the listeners of the nodes
    ///     connected to the database to apply it (see `write`).
    ///   - operationTimeout: how long a call may wait for the server (to connect, for a free
    ///     connection, for its statements) when the caller set no `StoreDeadline`.
    ///   - abandonedTransactionTimeout: the session's `idle_in_transaction_session_timeout`
    ///     (zero: the server's), so that a transaction whose node went quiet releases its locks.
    ///   - clock: the source of `updateTime`.
    ///   - onNotice: receives the server's notices and warnings (libpq would print them on stderr).
    /// - Throws: `StoreError.invalidArgument` for a bad URL, retention or pool size;
    ///   `StoreError.unavailable` when the server cannot be reached; `MigrationError` (including
    ///   `schemaTooNew`) and `PostgresMigrationError` from the migrations.
    public init(
        url: String,
        migrationsDirectory: URL,
        retention: Int = 300,
        connections: Int = 4,
        acknowledgementTimeout: Duration = .seconds(2),
        operationTimeout: Duration = .seconds(30),
        abandonedTransactionTimeout: Duration = .zero,
        clock: @escaping @Sendable () -> Date = { SystemClock().now },
        onNotice: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        guard retention >= 1 else {
            throw StoreError.invalidArgument("retention must be at least 1, got \(retention)")
        }
        guard connections >= 1 else {
            throw StoreError.invalidArgument("the connection pool needs at least 1 connection, got \(connections)")
        }
        let settings: PostgresConnectionSettings
        do {
            settings = try PostgresConnectionSettings(url)
        } catch {
            throw StoreError.invalidArgument(error.message)
        }
        let migrator = PostgresMigrator(try Migrator(directory: migrationsDirectory))
        do {
            let connection = try PostgresConnection(settings: settings, onNotice: onNotice)
            defer { connection.close() }
            try migrator.migrate(connection)
        } catch let error as PostgresError {
            throw Self.storeError(error)
        }
        self.settings = settings
        self.acknowledgementTimeout = acknowledgementTimeout
        self.operationTimeout = operationTimeout
        self.retention = retention
        self.clock = clock
        self.onNotice = onNotice
        let idleMilliseconds = abandonedTransactionTimeout / .milliseconds(1)
        pool = PostgresConnectionPool(size: connections) { deadline throws(PostgresError) in
            let connection = try PostgresConnection(settings: settings, deadline: deadline, onNotice: onNotice)
            if idleMilliseconds >= 1 {
                try connection.execute("SET idle_in_transaction_session_timeout = \(Int(idleMilliseconds))")
            }
            return connection
        }
    }

    /// Closes the connections. Later calls throw `StoreError.unavailable`. Idempotent; waits
    /// for calls in progress.
    public func close() {
        pool.close()
    }

    // MARK: Connection access

    /// Runs `body` on a pool connection outside any transaction (one statement is one snapshot),
    /// by the caller's `StoreDeadline` or else within `operationTimeout`.
    func withPooledConnection<Result: Sendable>(
        _ body: @Sendable (PostgresConnection) throws -> Result
    ) throws(StoreError) -> Result {
        do {
            return try pool.withConnection(deadline: StoreDeadline.current ?? .now + operationTimeout, body)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Runs `body` on a pool connection outside any transaction (`withPooledConnection`).
    package func read<Result: Sendable>(
        _ body: @Sendable (PostgresStoreConnection) throws -> Result
    ) throws(StoreError) -> Result {
        try withPooledConnection { connection in try body(PostgresStoreConnection(connection: connection)) }
    }

    /// Runs `body` in a transaction, `lock` taken as a transaction-level advisory lock with its
    /// `BEGIN`. An announced one also increments `store_revision` and notifies what it changed,
    /// both taking effect only if it commits, and returns once the nodes applied it
    /// (`waitForNodes`); an unannounced one does none of that.
    @discardableResult
    package func write<Result: Sendable>(
        announcing announcement: Announcement<Result>, holding lock: WriteLock?,
        _ body: @Sendable (PostgresStoreConnection) throws -> Result
    ) throws(StoreError) -> Result {
        // The lock's number is the store's own constant: safe to write into the statement.
        let locking = lock.map { ["SELECT pg_advisory_xact_lock(\($0.rawValue))"] } ?? []
        guard announcement.isAnnounced else {
            return try withPooledConnection { connection in
                try connection.inTransaction(opening: locking) {
                    let result = try body(PostgresStoreConnection(connection: connection))
                    try Self.claimCommit()
                    return result
                }
            }
        }
        let end = ContinuousClock.now + acknowledgementTimeout
        return try withPooledConnection { connection in
            // The LISTEN takes effect with the commit: no acknowledgement of this write can be missed.
            let (result, revision) = try connection.inTransaction(opening: [PostgresConnection.listenStatement(Self.acknowledgementChannel)] + locking) {
                let result = try body(PostgresStoreConnection(connection: connection))
                let change = announcement.change(for: result)?.payload ?? ""
                let revision = try connection.queryFirst(
                    """
                    WITH bump AS (UPDATE store_revision SET revision = revision + 1 RETURNING revision)
                    SELECT revision, pg_notify($1, revision::text || E'\\t' || $2) FROM bump
                    """,
                    [.text(Self.notificationChannel), .text(change)]
                ) { $0.int64(at: 0) }
                try Self.claimCommit()
                return (result, revision ?? 0)
            }
            try waitForNodes(revision: revision, end: end, on: connection)
            return result
        }
    }

    /// Last in a write transaction: a request already answered as refused must not change
    /// anything.
    private static func claimCommit() throws {
        guard StoreDeadline.claimCommit() else {
            throw StoreError.unavailable("the request was refused before its commit")
        }
    }

    /// Waits, after an announced write committed, until every live node's listener connected
    /// to the database has applied `revision` (`listener_acks`): from then on no node answers
    /// with what the write replaced. A listener that is connected but does not answer in time
    /// only delays the return: the write returns at most `acknowledgementTimeout` after it
    /// began (`end`), clean-up included, or one round trip after its commit if that alone took
    /// longer. When the connection fails during that wait, the write throws `outcomeUnknown`:
    /// it is committed, but not known to be served everywhere.
    private func waitForNodes(revision: Int64, end: ContinuousClock.Instant, on connection: PostgresConnection) throws {
        // From the commit on, the write's end bounds every statement (the caller's deadline
        // bounded the work up to the commit, which is done); a commit that took all the time
        // still leaves the clean-up its round trip, or the connection would be lost.
        connection.deadline = max(end, ContinuousClock.now + Self.unlistenAllowance)
        do {
            try waitForListeners(revision: revision, until: end - Self.unlistenAllowance, on: connection)
        } catch {
            // The database went away after the commit: the write stands, but whether every
            // node serves it cannot be known, so it is not acknowledged as if it did.
            connection.close()
            onNotice("stopped waiting for the nodes to apply revision \(revision): \(error)")
            throw StoreError.outcomeUnknown(
                "the write was committed, but the database went away before every node confirmed it: it may not be served everywhere yet")
        }
        do {
            try connection.unlisten(Self.acknowledgementChannel)
        } catch {
            connection.close()
        }
    }

    /// What the wait for the listeners leaves of a write's `acknowledgementTimeout` for its
    /// `UNLISTEN` (one round trip on a healthy connection).
    static let unlistenAllowance: Duration = .milliseconds(25)

    /// Waits until no live listener of this database has acknowledged less than `revision`, or
    /// `deadline` passed. It asks the database once which live listeners are behind, then
    /// counts their acknowledgements off as they arrive (`acknowledgementChannel`, each sent by
    /// the listener's own server process), without asking again after each; it asks again only
    /// when the first of those still behind stops counting as live.
    ///
    /// A listener is live while its last heartbeat or acknowledgement (`listener_acks.seen_at`,
    /// or its session's start until it wrote one) is within `ListenerLiveness.window`, by the
    /// server's clock: the backend of a node whose host vanished stays in `pg_stat_activity`
    /// for minutes, and is not waited for past that window.
    private func waitForListeners(revision: Int64, until deadline: ContinuousClock.Instant, on connection: PostgresConnection) throws {
        let windowMilliseconds = Int64(ListenerLiveness.window / .milliseconds(1))
        while ContinuousClock.now < deadline {
            let behind = try connection.query(
                """
                WITH behind AS (
                    SELECT a.pid, coalesce(k.seen_at, a.backend_start) + $3::bigint * interval '1 millisecond' AS stale_at
                    FROM pg_stat_activity a LEFT JOIN listener_acks k ON k.pid = a.pid
                    WHERE a.datname = current_database() AND a.application_name LIKE $1 || '%'
                        AND coalesce(k.revision, 0) < $2
                )
                SELECT pid, ceil(extract(epoch FROM stale_at - clock_timestamp()) * 1000)::bigint
                FROM behind WHERE stale_at > clock_timestamp()
                """,
                [.text(Self.listenerNamePrefix), .integer(revision), .integer(windowMilliseconds)]
            ) { (pid: Int32(truncatingIfNeeded: $0.int64(at: 0)), staleInMilliseconds: $0.int64(at: 1)) }
            var waitingFor = Set(behind.map(\.pid))
            guard let firstStale = behind.map(\.staleInMilliseconds).min() else { return }
            let recheck = min(deadline, ContinuousClock.now + .milliseconds(max(1, firstStale)))
            while !waitingFor.isEmpty, ContinuousClock.now < recheck {
                let remaining = ContinuousClock.now.duration(to: recheck)
                for notification in try connection.waitForNotifications(timeout: remaining)
                where notification.channel == Self.acknowledgementChannel && (Int64(notification.payload) ?? 0) >= revision {
                    waitingFor.remove(notification.senderPID)
                }
            }
            guard !waitingFor.isEmpty else { return }
        }
    }
}
