import ConfigCore
import ConfigStore
import Foundation

/// A usage report as the API shows it (docs/insights.md, "The API"): counts as numbers, times
/// in RFC 3339, windows by name.
struct UsageReportJSON: Encodable {
    struct Counts: Encodable {
        let evaluations: Int64
        let bySource: [String: Int64]
        let byAppVersion: [String: Int64]
        let byPlatform: [String: Int64]
    }

    struct Parameter: Encodable {
        let key: String
        let publishTime: Timestamp
        let lastEvaluateTime: Timestamp?
        let permanent: Bool
        let unevaluated: Bool
        let staleReason: String?
        let windows: [String: Counts]
        /// Evaluations per day, oldest first, the last day ending with the report's hour.
        let daily: [Int64]
    }

    struct Stale: Encodable {
        let key: String
        let reason: String
        let lastEvaluateTime: Timestamp?
    }

    let templateVersion: String
    let time: Timestamp
    let countedSince: Timestamp?
    /// When the first day of each parameter's `daily` series starts.
    let dailyStart: Timestamp
    let staleDays: Int
    let parameters: [Parameter]
    let unevaluated: [String]
    let stale: [Stale]

    init(_ report: UsageReport, version: Int64) {
        templateVersion = "\(version)"
        time = Timestamp(report.time)
        countedSince = report.countedSince.map(Timestamp.init)
        dailyStart = Timestamp(UsageWindow.seriesEnd(at: report.time).addingTimeInterval(-Double(UsageWindow.seriesDays) * 86_400))
        staleDays = report.rule.days
        parameters = report.parameters.map { usage in
            Parameter(
                key: usage.key, publishTime: Timestamp(usage.facts.publishTime), lastEvaluateTime: usage.facts.lastEvaluateTime.map(Timestamp.init),
                permanent: usage.facts.permanent, unevaluated: usage.unevaluated, staleReason: usage.staleReason?.rawValue,
                windows: Dictionary(uniqueKeysWithValues: usage.windows.map { window, counts in
                    (window.rawValue, Counts(evaluations: counts.evaluations, bySource: counts.bySource, byAppVersion: counts.byAppVersion,
                                             byPlatform: counts.byPlatform))
                }), daily: usage.daily)
        }
        unevaluated = report.unevaluated
        stale = report.stale.compactMap { usage in
            usage.staleReason.map { Stale(key: usage.key, reason: $0.rawValue, lastEvaluateTime: usage.facts.lastEvaluateTime.map(Timestamp.init)) }
        }
    }
}
