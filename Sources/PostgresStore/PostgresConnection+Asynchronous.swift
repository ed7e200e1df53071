import CLibPQ
import Glibc

/// Driving a connection from an event loop: nothing here waits for the server.
extension PostgresConnection {
    /// Makes sends queue instead of blocking (`PQsetnonblocking`); `flush()` pushes the rest.
    public func setNonBlocking() throws(PostgresError) {
        guard PQsetnonblocking(try openHandle(), 1) == 0 else { throw connectionError(lastErrorMessage()) }
    }

    /// Moves what the socket holds into libpq's buffer, without blocking.
    /// - Throws: `PostgresError` without SQLSTATE when the connection broke.
    public func consumeInput() throws(PostgresError) {
        guard PQconsumeInput(try openHandle()) == 1 else { throw connectionError(lastErrorMessage()) }
    }

    /// Whether a connection that sat idle can still be used: open, and with nothing arrived
    /// meanwhile. An idle connection is sent nothing but what ends it (a restart or an ended
    /// backend leaves its FATAL notice, then the end of the stream, which libpq only reports on
    /// the next query), so a look at the socket, without a round trip, spares that query its
    /// failure; the rare other message costs a new connection.
    public var isUsableAfterIdling: Bool {
        guard isOpen else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 0
    }

    /// Sends `sql` (no parameters) and returns at once; its answer is collected by
    /// `finishSentQuery()` once `socket` turned readable.
    public func sendQuery(_ sql: String) throws(PostgresError) {
        let handle = try openHandle()
        guard PQsendQuery(handle, sql) == 1 else { throw connectionError(lastErrorMessage()) }
        try flush()
    }

    /// Pushes queued output; whether some is still queued (only a socket that stays full keeps
    /// it queued, which a few bytes of heartbeat never meet).
    @discardableResult
    public func flush() throws(PostgresError) -> Bool {
        let result = PQflush(try openHandle())
        guard result >= 0 else { throw connectionError(lastErrorMessage()) }
        return result == 1
    }

    /// Takes the answer of the query `sendQuery` sent if all of it has arrived (call
    /// `consumeInput()` first).
    /// - Returns: true when the query is done, false while its answer is still coming.
    /// - Throws: the query's error, or a broken connection's.
    public func finishSentQuery() throws(PostgresError) -> Bool {
        let handle = try openHandle()
        var failure: PostgresError?
        while PQisBusy(handle) == 0 {
            guard let result = PQgetResult(handle) else {
                if let failure { throw failure }
                return true
            }
            let owned = PostgresResult(handle: result)
            if failure == nil, ![PGRES_COMMAND_OK, PGRES_TUPLES_OK].contains(PQresultStatus(owned.handle)) {
                failure = error(from: owned.handle)
            }
        }
        return false
    }
}
