import CLibPQ
import Glibc

/// Statements and connecting bounded by a deadline: libpq's asynchronous calls, with `poll` on
/// the socket in between, so that a server or network that went quiet costs a bounded time.
extension PostgresConnection {
    /// Drives `PQconnectPoll` until the session is ready or the deadline passed.
    func finishConnecting(by deadline: ContinuousClock.Instant) throws(PostgresError) {
        let handle = try openHandle()
        var polling = PGRES_POLLING_WRITING
        while true {
            switch polling {
            case PGRES_POLLING_OK:
                return
            case PGRES_POLLING_FAILED:
                throw connectionError("cannot connect: \(lastErrorMessage())")
            case PGRES_POLLING_READING:
                try waitForSocket(Int16(POLLIN), by: deadline, doing: "connecting")
            default:
                try waitForSocket(Int16(POLLOUT), by: deadline, doing: "connecting")
            }
            polling = PQconnectPoll(handle)
        }
    }

    /// Sends what is queued and collects every result of the statement just sent: the first
    /// failed one, else the last (as `PQexec` does).
    /// - Throws: `PostgresError.isTimeout` after closing the connection when the deadline passed.
    func awaitResult(by deadline: ContinuousClock.Instant) throws(PostgresError) -> OpaquePointer? {
        let handle = try openHandle()
        var kept: OpaquePointer?
        do throws(PostgresError) {
            while try flush() {
                // libpq asks to read while a send waits, or the server may block on its own send.
                if try waitForSocket(Int16(POLLIN | POLLOUT), by: deadline, doing: "sending") & Int16(POLLIN) != 0 {
                    try consumeInput()
                }
            }
            while true {
                while PQisBusy(handle) == 1 {
                    try waitForSocket(Int16(POLLIN), by: deadline, doing: "waiting for the answer")
                    try consumeInput()
                }
                guard let result = PQgetResult(handle) else { return kept }
                if let previous = kept, ![PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY].contains(PQresultStatus(previous)) {
                    PQclear(result)
                } else {
                    kept.map { PQclear($0) }
                    kept = result
                }
            }
        } catch {
            kept.map { PQclear($0) }
            throw error
        }
    }

    /// Waits until the socket is ready for `events`; the events seen.
    /// - Throws: `PostgresError.isTimeout` once the deadline passed, after closing the
    ///   connection (what the server got of the statement is unknown).
    @discardableResult
    func waitForSocket(_ events: Int16, by deadline: ContinuousClock.Instant, doing step: String) throws(PostgresError) -> Int16 {
        guard let ready = try pollSocket(events, by: deadline) else {
            let error = PostgresError.timedOut("\(settings): no answer from the server while \(step)")
            close()
            throw error
        }
        return ready
    }

    /// The events the socket became ready for, or nil once the deadline passed.
    func pollSocket(_ events: Int16, by deadline: ContinuousClock.Instant) throws(PostgresError) -> Int16? {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return nil }
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let milliseconds = Int32(min(Double(Int32.max), (remaining / .milliseconds(1)).rounded(.up)))
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0, errno != EINTR { throw connectionError("poll failed: errno \(errno)") }
            if ready > 0 { return descriptor.revents }
        }
    }
}
