package import ConfigStore
import ConfigCore
package import Foundation
package import Logging
import Synchronization

/// What a worker counted of its clients' evaluations, and its writes to the store
/// (docs/insights.md): every version the worker compiles is tracked here; the `usage flush` job
/// takes their counts, adds them to the store in one transaction, and keeps a write that failed
/// for the next one. The store sums every worker's and node's writes.
package final class UsageLedger: Sendable {
    /// Hours of failed writes kept before the oldest is dropped (with a warning): a store
    /// unreachable for longer loses the counts of its first hours, never the worker's memory.
    static let maxPendingHours = 48

    private struct Tracked {
        let template: ActiveTemplate
        /// Writes since it was last served or counted something: dropped at two.
        var idleFlushes = 0
    }

    private struct State {
        var tracked: [ObjectIdentifier: Tracked] = [:]
        /// The head version whose keys this worker last recorded, per template.
        var recordedHeads: [TemplateKey: Int64] = [:]
        /// Writes that failed, one per hour, oldest first.
        var pending: [UsageBatch] = []
        /// When the counts now held began: they fall in that hour's bucket.
        var countingSince: Date
    }

    private let store: any UsageStore
    private let logger: Logger
    private let state: Mutex<State>

    package init(store: any UsageStore, start: Date, logger: Logger) {
        self.store = store
        self.logger = logger
        state = Mutex(State(countingSince: start))
    }

    /// Counts `template` from now on until it is neither served nor counting.
    func track(_ template: ActiveTemplate) {
        state.withLock { $0.tracked[ObjectIdentifier(template)] = Tracked(template: template) }
    }

    /// `usage flush`, on every worker: every `interval` seconds and at each hour's start, so that
    /// no write carries counts of two hours.
    package func job(templates: TemplateRegistry, interval: TimeInterval) -> Job {
        Job("usage flush", scope: .everyWorker) { [self] now, _ in
            flush(now: now, served: templates.servedTemplates)
            return min(now.addingTimeInterval(interval), UsageWindow.nextBucket(after: now))
        }
    }

    /// Takes every tracked version's counts and writes them, with the heads of `served` (the
    /// versions served now, by template: the active one first) whose keys were not recorded yet,
    /// and any write that failed before. Runs on the jobs lane (or once the jobs stopped).
    /// - Returns: whether everything counted is now in the store.
    @discardableResult
    package func flush(now: Date, served: [TemplateKey: [ActiveTemplate]]) -> Bool {
        let batch = collect(now: now, served: served)
        let pending = state.withLock { state -> [UsageBatch] in
            if !batch.templates.isEmpty {
                if let last = state.pending.last, last.hour == batch.hour {
                    state.pending[state.pending.count - 1].add(batch)
                } else {
                    state.pending.append(batch)
                }
            }
            if state.pending.count > Self.maxPendingHours {
                logger.warning("usage counts of an hour are dropped: the store could not take them", metadata: [
                    "hour": "\(state.pending[0].hour)"])
                state.pending.removeFirst()
            }
            return state.pending
        }
        for (index, batch) in pending.enumerated() {
            do {
                try store.record(batch)
            } catch {
                logger.warning("cannot write usage counts; they are kept for the next write", metadata: ["error": "\(error)"])
                state.withLock { $0.pending.removeFirst(index) }
                return false
            }
        }
        state.withLock { $0.pending.removeFirst(pending.count) }
        if !pending.isEmpty {
            logger.debug("usage counts written", metadata: ["answers": "\(pending.reduce(0) { $0 + $1.answers })"])
        }
        return true
    }

    /// The counts of every tracked version since the last call, by template, and the heads to
    /// record; forgets the versions no longer served that counted nothing twice in a row.
    private func collect(now: Date, served: [TemplateKey: [ActiveTemplate]]) -> UsageBatch {
        let (tracked, since) = state.withLock { state in
            defer { state.countingSince = now }
            return (state.tracked.values.map(\.template), state.countingSince)
        }
        let servedNow = Set(served.values.flatMap { $0.map(ObjectIdentifier.init) })
        var usages: [TemplateKey: TemplateUsage] = [:]
        var idle = Set<ObjectIdentifier>()
        for template in tracked {
            var usage = usages[template.key] ?? TemplateUsage(key: template.key)
            if template.takeUsage(into: &usage) {
                usages[template.key] = usage
            } else if !servedNow.contains(ObjectIdentifier(template)) {
                idle.insert(ObjectIdentifier(template))
            }
        }
        let heads = state.withLock { state -> [TemplateKey: ServedHead] in
            for id in state.tracked.keys {
                if idle.contains(id) { state.tracked[id]?.idleFlushes += 1 } else { state.tracked[id]?.idleFlushes = 0 }
            }
            state.tracked = state.tracked.filter { $0.value.idleFlushes < 2 }
            var heads: [TemplateKey: ServedHead] = [:]
            for (key, templates) in served {
                guard let active = templates.first(where: { !$0.isCanary }), state.recordedHeads[key] != active.versionNumber else { continue }
                heads[key] = active.servedHead
                state.recordedHeads[key] = active.versionNumber
            }
            return heads
        }
        for (key, head) in heads { usages[key, default: TemplateUsage(key: key)].head = head }
        return UsageBatch(hour: UsageWindow.bucket(of: since), time: since, templates: Array(usages.values))
    }
}
