import Foundation

/// The usage report as the server writes it (docs/insights.md), and its renderings for people.
struct UsageReportText: Decodable {
    struct Counts: Decodable {
        var evaluations: Int64
        var bySource: [String: Int64]
        var byAppVersion: [String: Int64]
        var byPlatform: [String: Int64]
    }

    struct Parameter: Decodable {
        var key: String
        var publishTime: String?
        var lastEvaluateTime: String?
        var permanent: Bool
        var unevaluated: Bool
        var staleReason: String?
        var windows: [String: Counts]
    }

    struct Stale: Decodable {
        var key: String
        var reason: String
        var lastEvaluateTime: String?
    }

    var templateVersion: String
    var staleDays: Int
    var countedSince: String?
    var parameters: [Parameter]
    var unevaluated: [String]
    var stale: [Stale]

    /// The windows a report has, shortest first.
    static let windows = ["hour", "day", "week", "month"]

    /// One line per parameter for `window`: evaluations, the last one, and the largest sources,
    /// app versions and platforms (at most `limit` each).
    func table(window: String, keys: Set<String>, limit: Int) -> String {
        let rows = parameters.filter { keys.isEmpty || keys.contains($0.key) }.map { parameter -> [String] in
            let counts = parameter.windows[window]
            return [
                parameter.key, "\(counts?.evaluations ?? 0)", parameter.lastEvaluateTime ?? "never",
                Self.largest(counts?.bySource, limit), Self.largest(counts?.byAppVersion, limit), Self.largest(counts?.byPlatform, limit),
            ]
        }
        guard !rows.isEmpty else { return "No parameters" }
        return TextTable.render(header: ["KEY", "EVALUATIONS (\(window))", "LAST EVALUATED", "SOURCES", "APP VERSIONS", "PLATFORMS"], rows: rows)
    }

    /// What is stale and what was never evaluated, in sentences.
    var staleSummary: String {
        var lines = ["Stale after \(staleDays) days without an evaluation, or of one value served to every client"
            + (countedSince.map { " (counted since \($0))" } ?? "") + ":"]
        lines += stale.isEmpty ? ["  none"] : stale.map { stale in
            let reason = stale.reason == "ONE_VALUE" ? "serves one value to every client" : "not evaluated"
            return "  \(stale.key)\t\(reason)\tlast evaluated \(stale.lastEvaluateTime ?? "never")"
        }
        lines.append("Never evaluated since published:")
        lines += unevaluated.isEmpty ? ["  none"] : unevaluated.map { "  \($0)" }
        let permanent = parameters.filter(\.permanent).map(\.key)
        if !permanent.isEmpty { lines.append("Permanent (never stale): " + permanent.joined(separator: ", ")) }
        return lines.joined(separator: "\n")
    }

    /// `a 10, b 3, …`: the `limit` largest counts.
    private static func largest(_ counts: [String: Int64]?, _ limit: Int) -> String {
        let sorted = (counts ?? [:]).sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let shown = sorted.prefix(limit).map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return sorted.count > limit ? shown + ", …" : shown
    }
}
