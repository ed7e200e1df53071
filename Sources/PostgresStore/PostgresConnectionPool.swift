import Dispatch
import Synchronization

/// A fixed number of connections, each used by one caller at a time.
///
/// Each connection lives in its own `Mutex` slot and never leaves it: a caller waits for a free
/// slot (the semaphore counts them), takes its index, and runs its body inside that slot's
/// lock. A slot is connected on first use, and again on the next use after its connection
/// broke or the server closed it while it sat idle, so a restarted server costs no failed call.
final class PostgresConnectionPool: Sendable {
    private let slots: [Slot]
    private let freeSlots: Mutex<[Int]>
    private let slotAvailable: DispatchSemaphore
    private let closed = Atomic(false)
    private let connect: @Sendable (ContinuousClock.Instant) throws(PostgresError) -> PostgresConnection

    /// - Parameters:
    ///   - size: how many connections at most.
    ///   - connect: opens one connection, giving up at the deadline it is given.
    init(size: Int, connect: @escaping @Sendable (ContinuousClock.Instant) throws(PostgresError) -> PostgresConnection) {
        precondition(size >= 1, "a pool needs at least one connection")
        slots = (0..<size).map { _ in Slot() }
        freeSlots = Mutex(Array(0..<size))
        slotAvailable = DispatchSemaphore(value: size)
        self.connect = connect
    }

    /// Runs `body` on a connected connection, waiting for one to be free; waiting, connecting
    /// and every statement of `body` end by `deadline` (the connection's, which `body` may move).
    ///
    /// `body` is @Sendable so that handing it the connection does not merge the connection's
    /// region with the caller's; the connection never leaves its slot.
    /// - Throws: what `body` throws; `PostgresError` when connecting fails, the pool is closed or
    ///   the deadline passed (`isTimeout`).
    func withConnection<Result: Sendable>(
        deadline: ContinuousClock.Instant, _ body: @Sendable (PostgresConnection) throws -> Result
    ) throws -> Result {
        let wait = ContinuousClock.now.duration(to: deadline)
        let nanoseconds = max(0, wait.components.seconds * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000)
        guard slotAvailable.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .success else {
            throw PostgresError.timedOut("every connection stayed busy")
        }
        let index = freeSlots.withLock { $0.removeLast() }
        defer {
            freeSlots.withLock { $0.append(index) }
            slotAvailable.signal()
        }
        return try slots[index].connection.withLock { slot in
            guard !closed.load(ordering: .acquiring) else {
                throw PostgresError(sqlState: nil, message: "the store is closed")
            }
            let connection: PostgresConnection
            if let open = slot, open.isUsableAfterIdling {
                connection = open
            } else {
                slot = nil
                connection = try connect(deadline)
                slot = connection
            }
            connection.deadline = deadline
            defer { connection.deadline = nil }
            return try body(connection)
        }
    }

    /// One place for a connection (a `Mutex` cannot sit in an array by itself).
    private final class Slot: Sendable {
        let connection = Mutex<PostgresConnection?>(nil)
    }

    /// Closes every connection, waiting for calls in progress; later calls throw.
    func close() {
        closed.store(true, ordering: .releasing)
        for slot in slots {
            slot.connection.withLock { connection in
                connection?.close()
                connection = nil
            }
        }
    }
}
