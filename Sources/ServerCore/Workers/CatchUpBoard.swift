import CLinuxIO

/// What a node's workers share so that its store listener acknowledges a change only once every
/// serving worker will answer it (docs/consistency.md, "Across nodes"), and what they all know
/// of the store.
///
/// The listener moves the change counters of what it heard, then raises the *epoch* and waits
/// (reading on meanwhile) until each serving worker has written, in its own slot, an epoch at
/// least as high: a worker
/// writes the epoch it read before it read again, from the store, everything whose counter moved
/// (and the templates it had never loaded). Only then does the listener acknowledge, so a writer
/// on any node answers only once every worker here serves the new version. A listener that waits
/// in vain past its deadline gives up: the node is *behind* until it has caught up.
///
/// A worker's slot holds 0 while it is not serving (before its first load, and after its exit,
/// which the supervisor records), else its epoch plus one.
package final class CatchUpBoard: @unchecked Sendable {
    // @unchecked: every slot is read and written through atomic operations on memory that is
    // never unmapped while the process runs.
    static let maxWorkers = 64
    private static let epochSlot = 0
    private static let lastFailureSlot = 1
    private static let behindSlot = 2
    private static let lastAnswerSlot = 3
    private static let firstWorkerSlot = 4
    static let regionBytes = (firstWorkerSlot + maxWorkers) * MemoryLayout<Int64>.size

    private let slots: UnsafeMutablePointer<Int64>

    package init(region: UnsafeMutableRawPointer) {
        slots = region.bindMemory(to: Int64.self, capacity: Self.firstWorkerSlot + Self.maxWorkers)
    }

    /// A board for a server of one process.
    package static func local() -> CatchUpBoard {
        let region = UnsafeMutableRawPointer.allocate(byteCount: regionBytes, alignment: 8)
        region.initializeMemory(as: UInt8.self, repeating: 0, count: regionBytes)
        return CatchUpBoard(region: region)
    }

    // MARK: The listener's side

    /// The epoch workers catch up to.
    var epoch: Int64 { rcs_atomic_load(slots + Self.epochSlot) }

    /// After the counters of what the listener heard moved: the epoch every serving worker must
    /// reach before the listener acknowledges. Wakes every worker's catch-up thread at once
    /// (``waitForRaise(from:timeoutMillis:)``), however busy its event loop.
    func raiseEpoch() -> Int64 { rcs_counter_raise(slots + Self.epochSlot) }

    /// The serving workers (of `workers`) that have not reached `epoch`.
    func workersBehind(_ epoch: Int64, workers: Int) -> [Int] {
        (0..<min(workers, Self.maxWorkers)).filter { worker in
            let slot = rcs_atomic_load(slots + Self.firstWorkerSlot + worker)
            return slot != 0 && slot - 1 < epoch
        }
    }

    // MARK: A worker's side

    /// Sleeps until the epoch is no longer `epoch` (returning at once if it already moved), or
    /// `timeoutMillis` passed, or ``wakeWaiters()``.
    func waitForRaise(from epoch: Int64, timeoutMillis: Int32) {
        rcs_counter_wait(slots + Self.epochSlot, epoch, timeoutMillis)
    }

    /// Wakes the threads in ``waitForRaise(from:timeoutMillis:)`` (of every worker) without a
    /// raise: one that must stop.
    func wakeWaiters() {
        rcs_counter_wake(slots + Self.epochSlot)
    }

    /// The epoch `worker` last reported (nil while it is not serving).
    func caughtUp(_ worker: Int) -> Int64? {
        let slot = rcs_atomic_load(slots + Self.firstWorkerSlot + worker)
        return slot == 0 ? nil : slot - 1
    }

    /// `worker` read everything the counters marked as of `epoch`, and serves.
    func report(_ worker: Int, caughtUpTo epoch: Int64) {
        let slot = slots + Self.firstWorkerSlot + worker
        // One writer per slot (the worker's catch-up thread, or its start); the slot only grows.
        if rcs_atomic_load(slot) < epoch + 1 { rcs_atomic_store(slot, epoch + 1) }
    }

    /// `worker` no longer serves (it exited): the listener does not wait for it.
    package func forget(_ worker: Int) {
        rcs_atomic_store(slots + Self.firstWorkerSlot + worker, 0)
    }

    // MARK: What the node knows

    /// Of the attempts of any worker or of the listener to reach the store that ended, the one
    /// that *began* last failed (or ran out of time): a request that needs the store then waits
    /// only briefly before it is answered from memory. A hint, not a promise: the next answer
    /// clears it. Attempts count by when they began, not when they ended: right after a cut
    /// heals, a read stuck since the cut on a connection of its own (TCP backing off) fails
    /// after a sibling's later read was answered, and must not make the node answer from
    /// memory while that sibling tells its streams of what it read; in a new cut, the read that
    /// began before it and was answered says nothing of the reads that began after.
    var storeUnreachable: Bool {
        rcs_atomic_load(slots + Self.lastFailureSlot) > rcs_atomic_load(slots + Self.lastAnswerSlot)
    }

    /// Records an attempt to reach the store that began at `began` (``now``): the store
    /// `answered` it, or it failed or ran out of time.
    func recordAttempt(began: Int64, answered: Bool) {
        raise(answered ? Self.lastAnswerSlot : Self.lastFailureSlot, to: began)
    }

    /// Monotonic milliseconds, one clock for every process of the host: when an attempt began.
    static var now: Int64 { rcs_monotonic_millis() }

    private func raise(_ slot: Int, to time: Int64) {
        // Most calls find it there already: no write to a line every worker reads.
        guard rcs_atomic_load(slots + slot) < time else { return }
        rcs_atomic_raise(slots + slot, time)
    }

    /// The listener gave up waiting for its workers: the node acknowledges nothing (its peers do
    /// not wait for it), refuses writes and is not ready, until it has caught up.
    var isBehind: Bool {
        get { rcs_atomic_load(slots + Self.behindSlot) != 0 }
        set { rcs_atomic_store(slots + Self.behindSlot, newValue ? 1 : 0) }
    }
}
