public import ConfigStore
import Synchronization

/// A node's LISTEN connection to `rcs_changes`: what every write of every node notifies, in
/// commit order, only once committed.
///
/// Confinement, as `StoreChangeListener` says: `connect()` blocks and runs off the loop; then
/// one thread (the loop) calls the rest, which never waits for the server. The mutex only makes
/// that hand-over safe; it is never contended.
public final class PostgresChangeListener: StoreChangeListener {
    private let settings: PostgresConnectionSettings
    private let onNotice: @Sendable (String) -> Void
    private let state = Mutex(State())

    private struct State {
        var connection: PostgresConnection?
        var awaitingHeartbeat = false
    }

    /// - Parameters:
    ///   - settings: the store's settings; `application_name` is replaced by `name`, so that
    ///     operators can tell the nodes' listeners apart in `pg_stat_activity`.
    ///   - onNotice: receives the server's notices (the FATAL text of a terminated connection).
    public init(settings: PostgresConnectionSettings, name: String, onNotice: @escaping @Sendable (String) -> Void) {
        self.settings = settings.replacing("application_name", with: name)
        self.onNotice = onNotice
    }

    /// Connects, turns off the server's idle-session timeout for this session (a listener is
    /// idle by design) and runs `LISTEN`, committed when this returns.
    /// - Returns: the socket to watch for readability.
    public func connect() throws(StoreError) -> Int32 {
        close()
        do {
            // Made inside the lock so that the connection never crosses it.
            return try state.withLock { state throws(PostgresError) in
                let connection = try PostgresConnection(settings: settings, onNotice: onNotice)
                try connection.execute("SET idle_session_timeout = 0")
                try connection.listen(PostgresTemplateStore.notificationChannel)
                try connection.setNonBlocking()
                state = State(connection: connection)
                return connection.socket
            }
        } catch {
            throw PostgresTemplateStore.storeError(error)
        }
    }

    /// The changes the socket brought (none for a heartbeat's answer or part of a message);
    /// payloads this build cannot read are skipped (a newer node may announce more).
    public func receive() throws(StoreError) -> [StoreChange] {
        try withConnection { connection, awaitingHeartbeat throws(PostgresError) in
            try connection.consumeInput()
            guard connection.isOpen else { throw connection.connectionError("the connection was lost") }
            if awaitingHeartbeat, try connection.finishSentQuery() {
                awaitingHeartbeat = false
            }
            // Read after the heartbeat's answer: notifications that came with it are buffered.
            return try connection.bufferedNotifications().compactMap { StoreChange(payload: $0.payload) }
        }
    }

    /// Sends `SELECT 1`; `receive` takes the answer.
    public func sendHeartbeat() throws(StoreError) {
        try withConnection { connection, awaitingHeartbeat throws(PostgresError) in
            try connection.sendQuery("SELECT 1")
            awaitingHeartbeat = true
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
        _ body: (PostgresConnection, inout Bool) throws(PostgresError) -> Result
    ) throws(StoreError) -> Result {
        do {
            return try state.withLock { state throws(PostgresError) in
                guard let connection = state.connection else {
                    throw PostgresError(sqlState: nil, message: "the listener is not connected")
                }
                return try body(connection, &state.awaitingHeartbeat)
            }
        } catch {
            throw PostgresTemplateStore.storeError(error)
        }
    }
}

extension PostgresTemplateStore {
    /// A LISTEN connection of its own, named `name` on the server.
    public func makeChangeListener(name: String) -> (any StoreChangeListener)? {
        PostgresChangeListener(settings: settings, name: name, onNotice: onNotice)
    }
}
