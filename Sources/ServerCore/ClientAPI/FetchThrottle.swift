import Synchronization

/// A token bucket per app instance: `burst` fetches at once, refilled at `perMinute`.
/// Buckets of quiet instances are dropped once full again, so memory follows active clients.
package final class FetchThrottle: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Int64
    }

    private let burst: Double
    private let perSecond: Double
    private let buckets = Mutex<[String: Bucket]>([:])
    private let lastSweep = Mutex<Int64>(0)

    package init(burst: Int, perMinute: Int) {
        self.burst = Double(burst)
        self.perSecond = Double(perMinute) / 60
    }

    var isEnabled: Bool { burst > 0 && perSecond > 0 }

    /// nil when the fetch may go ahead; otherwise the seconds to wait.
    package func admit(_ instance: String, now: Int64) -> Int? {
        guard isEnabled else { return nil }
        sweep(now: now)
        return buckets.withLock { table in
            var bucket = table[instance] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + Double(now - bucket.updated) * perSecond)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                table[instance] = bucket
                return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
            }
            bucket.tokens -= 1
            table[instance] = bucket
            return nil
        }
    }

    /// Once a minute, forget buckets that have refilled completely.
    private func sweep(now: Int64) {
        let due = lastSweep.withLock { last in
            guard now - last >= 60 else { return false }
            last = now
            return true
        }
        guard due else { return }
        let refill = Int64((burst / perSecond).rounded(.up))
        buckets.withLock { table in table = table.filter { now - $0.value.updated < refill } }
    }
}
