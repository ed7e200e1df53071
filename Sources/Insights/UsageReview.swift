import ConfigCore
package import ConfigStore
import Foundation
package import Logging
package import ServerCore

/// The hourly look at every template's usage (docs/insights.md, "Unevaluated and stale"), on
/// each node's leader: a parameter that became stale gets its `parameter.stale` event (once,
/// whichever node finds it first: the store decides), and the worker's gauges say how many are
/// stale and unevaluated. Also the removal of buckets past their time.
package struct UsageReview: Sendable {
    let store: any UsageStore
    let templates: TemplateRegistry
    let metrics: ServerMetrics
    /// Tells webhook delivery that events were written (the dispatcher's `poke`).
    let onReported: @Sendable () -> Void
    let logger: Logger

    package init(store: any UsageStore, templates: TemplateRegistry, metrics: ServerMetrics,
                 onReported: @escaping @Sendable () -> Void, logger: Logger) {
        self.store = store
        self.templates = templates
        self.metrics = metrics
        self.onReported = onReported
        self.logger = logger
    }

    /// `usage review`: hourly, from the worker's start.
    package var job: Job {
        .every(3_600, "usage review", scope: .leaderOnly) { now in review(at: now) }
    }

    /// `usage pruning`: hourly.
    package var pruningJob: Job {
        .every(3_600, "usage pruning", scope: .leaderOnly) { [store, logger] now in
            do {
                try store.prune(now: now)
            } catch {
                // The next hour tries again; a bucket kept an hour longer changes no window.
                logger.warning("cannot remove old usage counts", metadata: ["error": "\(error)"])
            }
        }
    }

    func review(at now: Date) {
        var gauges: [TemplateKey: ServerMetrics.ParameterStates] = [:]
        for template in templates.activeTemplates {
            do {
                let head = template.servedHead
                let report = try store.report(template.key, parameters: head.keys, publishTime: head.publishTime, now: now, topValues: 1)
                let stale = report.stale.compactMap { usage in
                    usage.staleReason.map {
                        StaleParameter(key: usage.key, reason: $0, lastEvaluateTime: usage.facts.lastEvaluateTime, staleDays: report.rule.days)
                    }
                }
                if try !store.reportStale(template.key, stale: stale, now: now).isEmpty { onReported() }
                gauges[template.key] = ServerMetrics.ParameterStates(stale: stale.count, unevaluated: report.unevaluated.count)
            } catch {
                logger.warning("cannot review a template's usage", metadata: ["template": "\(template.key)", "error": "\(error)"])
            }
        }
        metrics.setParameterStates(gauges)
    }
}
