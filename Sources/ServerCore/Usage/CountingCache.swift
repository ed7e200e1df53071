import Synchronization

/// A map of values that are cheap to recompute (as `ResettingCache`), which also counts how many
/// times each key's value was handed out: a served answer is counted with one increment, inside
/// the lock its lookup takes anyway (docs/insights.md). When full it starts over, keeping the
/// counts of what it dropped until they are taken, so no count is lost.
package final class CountingCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Counted {
        var value: Value
        var count: Int64
    }

    private struct State {
        var entries: [Key: Counted] = [:]
        /// Counts of the entries dropped when the cache started over, not yet taken.
        var dropped: [Key: Int64] = [:]
    }

    private let state = Mutex(State())
    private let capacity: Int

    package init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value kept for `key`, or `compute()`'s, kept from now on; `hit` tells which. Counted
    /// once unless `counting` is false. The value is computed outside the lock, so a racing
    /// thread may compute it too (both are counted, one is kept).
    package func value(for key: Key, counting: Bool = true, compute: () -> Value) -> (value: Value, hit: Bool) {
        let increment: Int64 = counting ? 1 : 0
        let kept = state.withLock { state -> Value? in
            guard let index = state.entries.index(forKey: key) else { return nil }
            state.entries.values[index].count += increment
            return state.entries.values[index].value
        }
        if let kept { return (kept, true) }
        let computed = compute()
        state.withLock { state in
            if let index = state.entries.index(forKey: key) {
                state.entries.values[index].count += increment
                return
            }
            if state.entries.count >= capacity {
                for (key, counted) in state.entries where counted.count > 0 { state.dropped[key, default: 0] += counted.count }
                state.entries.removeAll(keepingCapacity: true)
            }
            state.entries[key] = Counted(value: computed, count: increment)
        }
        return (computed, false)
    }

    /// Counts `key`'s value handed out once more without a lookup (an answer repeated from
    /// elsewhere, such as OFREP's poll cache).
    package func count(_ key: Key) {
        state.withLock { state in
            if let index = state.entries.index(forKey: key) {
                state.entries.values[index].count += 1
            } else {
                state.dropped[key, default: 0] += 1
            }
        }
    }

    /// The counts since the last call, by key (none at zero); they start over.
    package func takeCounts() -> [Key: Int64] {
        state.withLock { state in
            var counts = state.dropped
            state.dropped = [:]
            for index in state.entries.indices where state.entries.values[index].count > 0 {
                counts[state.entries.keys[index], default: 0] += state.entries.values[index].count
                state.entries.values[index].count = 0
            }
            return counts
        }
    }
}
