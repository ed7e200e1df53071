import CLibPQ
import Foundation
import Glibc

/// One `NOTIFY` received on a channel this connection listens to.
public struct PostgresNotification: Sendable, Equatable {
    /// The channel name.
    public var channel: String
    /// The payload (empty when none was given).
    public var payload: String
    /// The server process of the connection that sent it.
    public var senderPID: Int32

    /// - Parameters: see the properties.
    public init(channel: String, payload: String, senderPID: Int32) {
        self.channel = channel
        self.payload = payload
        self.senderPID = senderPID
    }
}

/// LISTEN/NOTIFY. A listening connection should stay idle outside transactions: a notification
/// reaches it only between transactions, and only if the sender's transaction committed.
extension PostgresConnection {
    /// Starts listening to `channel` (autocommit; folded to lower case like any identifier
    /// unless quoted, so use lower-case names).
    public func listen(_ channel: String) throws(PostgresError) {
        try execute(Self.listenStatement(channel))
    }

    /// `LISTEN` for `channel`, its name quoted.
    public static func listenStatement(_ channel: String) -> String {
        "LISTEN \"\(channel.replacingOccurrences(of: "\"", with: "\"\""))\""
    }

    /// Stops listening to `channel` and forgets the notifications already received from it.
    public func unlisten(_ channel: String) throws(PostgresError) {
        try execute("UNLISTEN \"\(channel.replacingOccurrences(of: "\"", with: "\"\""))\"")
        _ = try bufferedNotifications()
    }

    /// The socket to wait on for readability (for an event loop); -1 when closed.
    public var socket: Int32 {
        (try? openHandle()).map(PQsocket) ?? -1
    }

    /// Reads what the server sent without blocking and returns the notifications it held, plus
    /// any that earlier statements absorbed. Call it when `socket` is readable.
    /// - Throws: `PostgresError` without SQLSTATE when the connection broke.
    public func consumeNotifications() throws(PostgresError) -> [PostgresNotification] {
        try consumeInput()
        return try bufferedNotifications()
    }

    /// The notifications libpq has already read (it reads them along with any other answer);
    /// never touches the socket.
    public func bufferedNotifications() throws(PostgresError) -> [PostgresNotification] {
        let handle = try openHandle()
        var received: [PostgresNotification] = []
        while let notify = PQnotifies(handle) {
            received.append(PostgresNotification(
                channel: String(cString: notify.pointee.relname), payload: String(cString: notify.pointee.extra),
                senderPID: notify.pointee.be_pid))
            PQfreemem(notify)
        }
        return received
    }

    /// Blocks until at least one notification arrives or `timeout` passes.
    /// - Returns: the notifications received (empty after the timeout).
    public func waitForNotifications(timeout: Duration) throws(PostgresError) -> [PostgresNotification] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let received = try consumeNotifications()
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard received.isEmpty, remaining > .zero else { return received }
            guard try pollSocket(Int16(POLLIN), by: deadline) != nil else { return [] }
        }
    }
}
