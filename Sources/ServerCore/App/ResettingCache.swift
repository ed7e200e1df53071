import Synchronization

/// A map of values that are cheap to recompute, under keys that are few in practice: when
/// full it starts over, so clients that send many distinct keys bound its memory, not its
/// correctness.
package final class ResettingCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries = Mutex<[Key: Value]>([:])
    private let capacity: Int

    package init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value kept for `key`, or `compute()`'s, kept from now on; `hit` tells which. The
    /// value is computed outside the lock, so a racing thread may compute it too.
    func value(for key: Key, compute: () -> Value) -> (value: Value, hit: Bool) {
        if let kept = entries.withLock({ $0[key] }) { return (kept, true) }
        let computed = compute()
        store(computed, for: key)
        return (computed, false)
    }

    /// The value kept for `key`, if any.
    package func cached(_ key: Key) -> Value? {
        entries.withLock { $0[key] }
    }

    /// Keeps `value` for `key` (starting over when full).
    package func store(_ value: Value, for key: Key) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = value
        }
    }
}
