public import ConfigStore
import Synchronization

/// A node's LISTEN connection to `rcs_changes`: what every write of every node notifies, in
/// commit order, only once committed.
///
/// Confinement, as `StoreChangeListener` says: `connect()` blocks and runs off the loop; then
/// one thread (the loop) calls the rest, which never waits for the server. The mutex only makes
/// that hand-over safe; it is never contended.
public final class PostgresChangeListener: StoreChangeListener {
    /// Run on the listener's session: PostgreSQL ends the backend of a listener whose host
    /// vanished (no reset ever reaches it) within about 25 s instead of the ~15 min of TCP
    /// retransmissions, probing after 10 s of silence every 5 s, 3 times, and giving up on
    /// unacknowledged data after 20 s. The client's own keepalives (`PostgresConnectionSettings`)
    /// only guard the node's side.
    public static let sessionSettings = [
        "SET tcp_keepalives_idle = 10",
        "SET tcp_keepalives_interval = 5",
        "SET tcp_keepalives_count = 3",
        "SET tcp_user_timeout = 20000",
    ]

    private let settings: PostgresConnectionSettings
    private let onNotice: @Sendable (String) -> Void
    private let state = Mutex(State())

    private struct State {
        var connection: PostgresConnection?
        var awaitingHeartbeat = false
        /// A heartbeat or an acknowledgement is on the wire (libpq runs one query at a time).
        var queryInFlight = false
        /// The newest `store_revision` received (read at connect, then from each payload).
        var receivedRevision: Int64 = 0
        /// The newest revision sent as acknowledged.
        var acknowledgedRevision: Int64 = 0
        /// `acknowledge()` was called while a query was in flight.
        var acknowledgementWanted: Int64?
    }

    /// - Parameters:
    ///   - settings: the store's settings; `application_name` becomes
    ///     `remote-config-listener <name>`, so that operators can tell the nodes' listeners
    ///     apart in `pg_stat_activity` and writers find them (`listenerNamePrefix`).
    ///   - onNotice: receives the server's notices (the FATAL text of a terminated connection).
    public init(settings: PostgresConnectionSettings, name: String, onNotice: @escaping @Sendable (String) -> Void) {
        self.settings = settings.replacing("application_name", with: "\(PostgresConfigDatabase.listenerNamePrefix) \(name)")
        self.onNotice = onNotice
    }

    /// Connects, sets up this session (`sessionSettings`, and no idle-session timeout: a
    /// listener is idle by design), ends every other session of this database under the same
    /// name (its predecessor: a listener of this node that restarted or reconnected, whose
    /// backend may outlive a vanished host), runs `LISTEN`, committed when this returns, and
    /// records itself as alive and not caught up yet.
    /// - Returns: the socket to watch for readability.
    public func connect() throws(StoreError) -> Int32 {
        close()
        do {
            // Made inside the lock so that the connection never crosses it.
            return try state.withLock { state throws(PostgresError) in
                let connection = try PostgresConnection(settings: settings, onNotice: onNotice)
                try connection.executeScript((["SET idle_session_timeout = 0"] + Self.sessionSettings).joined(separator: "; "))
                // The name as the server keeps it (cut to 63 bytes), and only sessions this
                // role may end; each waited for until it is gone (5 s at most), so that once this
                // listener listens its predecessor's session is no more.
                try connection.execute(
                    """
                    SELECT count(pg_terminate_backend(a.pid, 5000)) FROM pg_stat_activity a, pg_stat_activity me
                    WHERE me.pid = pg_backend_pid() AND a.pid <> me.pid AND a.datname = me.datname
                        AND a.application_name = me.application_name AND a.usesysid = me.usesysid
                    """)
                try connection.listen(PostgresConfigDatabase.notificationChannel)
                // Read after LISTEN: what the caller reads next is at least this new.
                let result = try connection.execute("SELECT revision FROM store_revision")
                let revision = result.rowCount > 0 ? result.row(0).int64(at: 0) : 0
                // Rows of listeners that are gone (a backend's pid may be reused later), then
                // this one's: alive, nothing acknowledged yet.
                try connection.executeScript(
                    """
                    DELETE FROM listener_acks WHERE pid NOT IN (SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL);
                    INSERT INTO listener_acks (pid, revision, seen_at) VALUES (pg_backend_pid(), 0, clock_timestamp())
                    ON CONFLICT (pid) DO UPDATE SET revision = 0, seen_at = excluded.seen_at
                    """)
                try connection.setNonBlocking()
                state = State(connection: connection, receivedRevision: revision)
                return connection.socket
            }
        } catch {
            throw PostgresConfigDatabase.storeError(error)
        }
    }

    /// The changes the socket brought (none for a heartbeat's answer or part of a message);
    /// payloads this build cannot read are skipped (a newer node may announce more).
    public func receive() throws(StoreError) -> [StoreChange] {
        try withConnection { connection, state throws(PostgresError) in
            try connection.consumeInput()
            guard connection.isOpen else { throw connection.connectionError("the connection was lost") }
            if state.queryInFlight, try connection.finishSentQuery() {
                state.queryInFlight = false
                state.awaitingHeartbeat = false
                if let wanted = state.acknowledgementWanted {
                    try Self.sendAcknowledgement(of: wanted, on: connection, state: &state)
                }
            }
            // Read after the query's answer: notifications that came with it are buffered.
            return try connection.bufferedNotifications().compactMap { notification in
                // `<revision><TAB><StoreChange.payload>`; a payload this build cannot read is
                // skipped (a newer node may announce more).
                let parts = notification.payload.split(separator: "\t", maxSplits: 1)
                guard parts.count == 2, let revision = Int64(parts[0]) else { return nil }
                state.receivedRevision = max(state.receivedRevision, revision)
                return StoreChange(payload: String(parts[1]))
            }
        }
    }

    /// The newest revision received: the changes `receive` returned so far cover it.
    public var receivedRevision: Int64 {
        state.withLock { $0.receivedRevision }
    }

    /// Records that this node applied every change up to `revision`; a writer waits for it.
    /// Sent after the query in flight, if any, never for more than was asked: what arrives
    /// meanwhile is not applied yet.
    public func acknowledge(through revision: Int64) throws(StoreError) {
        try withConnection { connection, state throws(PostgresError) in
            let revision = min(revision, state.receivedRevision)
            guard revision > state.acknowledgedRevision else { return }
            if state.queryInFlight {
                state.acknowledgementWanted = max(state.acknowledgementWanted ?? 0, revision)
            } else {
                try Self.sendAcknowledgement(of: revision, on: connection, state: &state)
            }
        }
    }

    /// Records the revision (and that the listener is alive), then wakes the writers waiting for it (`acknowledgementChannel`).
    private static func sendAcknowledgement(of revision: Int64, on connection: PostgresConnection,
                                            state: inout State) throws(PostgresError) {
        // An integer the listener read itself: safe to write into the statement.
        try connection.sendQuery(
            """
            INSERT INTO listener_acks (pid, revision, seen_at) VALUES (pg_backend_pid(), \(revision), clock_timestamp())
            ON CONFLICT (pid) DO UPDATE SET revision = GREATEST(listener_acks.revision, excluded.revision), seen_at = excluded.seen_at;
            SELECT pg_notify('\(PostgresConfigDatabase.acknowledgementChannel)', '\(revision)')
            """)
        state.acknowledgedRevision = revision
        state.acknowledgementWanted = nil
        state.queryInFlight = true
    }

    /// Records that the listener is alive (`listener_acks.seen_at`, by the server's clock);
    /// `receive` takes the answer.
    public func sendHeartbeat() throws(StoreError) {
        try withConnection { connection, state throws(PostgresError) in
            // A query in flight (an acknowledgement, which records it too) waits for its answer
            // as a heartbeat would.
            state.awaitingHeartbeat = true
            guard !state.queryInFlight else { return }
            try connection.sendQuery(
                """
                INSERT INTO listener_acks (pid, revision, seen_at) VALUES (pg_backend_pid(), 0, clock_timestamp())
                ON CONFLICT (pid) DO UPDATE SET seen_at = excluded.seen_at
                """)
            state.queryInFlight = true
        }
    }

    public var isAwaitingHeartbeat: Bool {
        state.withLock { $0.awaitingHeartbeat }
    }

    /// Closes the connection (idempotent).
    public func close() {
        state.withLock { state in
            state.connection?.close()
            state = State()
        }
    }

    private func withConnection<Result: Sendable>(
        _ body: (PostgresConnection, inout State) throws(PostgresError) -> Result
    ) throws(StoreError) -> Result {
        do {
            return try state.withLock { state throws(PostgresError) in
                guard let connection = state.connection else {
                    throw PostgresError(sqlState: nil, message: "the listener is not connected")
                }
                return try body(connection, &state)
            }
        } catch {
            throw PostgresConfigDatabase.storeError(error)
        }
    }
}

extension PostgresConfigDatabase {
    /// A LISTEN connection of its own, named `name` on the server.
    public func makeChangeListener(name: String) -> (any StoreChangeListener)? {
        PostgresChangeListener(settings: settings, name: name, onNotice: onNotice)
    }
}
