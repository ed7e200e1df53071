import ConfigCore
import Foundation

/// How a usage report is read (`SQLUsageStore.report`): every window summed in one pass over the
/// buckets, and the counts by client, kept per served version, expanded into the keys each version
/// has. SQL both engines read the same (`SUM` cast back to an integer: PostgreSQL's is numeric).
enum UsageReading {
    /// The sums of `count` over each window, in `UsageWindow.allCases` order.
    private static let windowSums = UsageWindow.allCases.map { _ in "CAST(SUM(CASE WHEN hour >= ? THEN count ELSE 0 END) AS BIGINT)" }
        .joined(separator: ", ")

    struct Query {
        let key: TemplateKey
        let parameters: [String]
        let publishTime: Date
        let now: Date
        let topValues: Int
    }

    static func report<Connection: StoreStatements>(_ query: Query, staleDays: Int, on connection: Connection) throws -> UsageReport {
        let template: [StoreValue] = [.text(query.key.project), .text(query.key.namespace.rawValue)]
        let rule = StalenessRule(days: staleDays)
        let starts = UsageWindow.allCases.map { StoreValue.integer(TemplateStoreRules.milliseconds($0.start(at: query.now))) }
        let earliest = starts.last ?? .integer(0)
        let countedSince = try connection.rows(
            "SELECT counted_since FROM usage_templates WHERE project = ? AND namespace = ?", template) { $0.int64(at: 0) }.first
            .map(TemplateStoreRules.date(milliseconds:))
        let recorded = try connection.rows(
            "SELECT parameter, publish_time, last_evaluate_time FROM usage_parameters WHERE project = ? AND namespace = ?", template
        ) { row in (row.text(at: 0), row.optionalInt64(at: 1), row.optionalInt64(at: 2)) }
        let permanent = Set(try connection.rows("SELECT parameter FROM usage_permanent WHERE project = ? AND namespace = ?", template) {
            $0.text(at: 0)
        })
        let distinct = try connection.rows(
            """
            SELECT parameter, count(DISTINCT value_digest) FROM usage_sources
            WHERE project = ? AND namespace = ? AND hour >= ? GROUP BY parameter
            """,
            template + [.integer(TemplateStoreRules.milliseconds(rule.windowStart(at: query.now)))]) { ($0.text(at: 0), Int($0.int64(at: 1))) }
        var counts: [String: [UsageCounts]] = [:]
        let wanted = Set(query.parameters)
        for parameter in query.parameters { counts[parameter] = Array(repeating: UsageCounts(), count: starts.count) }
        _ = try connection.rows(
            """
            SELECT parameter, source, \(windowSums) FROM usage_sources
            WHERE project = ? AND namespace = ? AND hour >= ? GROUP BY parameter, source
            """,
            starts + template + [earliest]
        ) { row in
            let parameter = row.text(at: 0), source = row.text(at: 1)
            guard wanted.contains(parameter) else { return }
            for window in starts.indices {
                let count = row.int64(at: 2 + window)
                counts[parameter]?[window].evaluations += count
                if count > 0 { counts[parameter]?[window].bySource[source, default: 0] += count }
            }
        }
        try addClients(to: &counts, template: template, starts: starts, on: connection)
        let daily = try dailySeries(of: wanted, template: template, now: query.now, on: connection)
        let records = Dictionary(recorded.map { ($0.0, (publish: $0.1, last: $0.2)) }, uniquingKeysWith: { first, _ in first })
        let distinctValues = Dictionary(distinct, uniquingKeysWith: { first, _ in first })
        let parameters = query.parameters.map { key in
            let record = records[key]
            let facts = ParameterFacts(
                publishTime: record?.publish.map(TemplateStoreRules.date(milliseconds:)) ?? query.publishTime,
                countedSince: countedSince ?? query.now, lastEvaluateTime: record?.last.map(TemplateStoreRules.date(milliseconds:)),
                distinctValues: distinctValues[key] ?? 0, permanent: permanent.contains(key))
            let windows = Dictionary(uniqueKeysWithValues: zip(UsageWindow.allCases, (counts[key] ?? []).map { $0.limited(to: query.topValues) }))
            return ParameterUsage(key: key, facts: facts, windows: windows,
                                  daily: daily[key] ?? Array(repeating: 0, count: UsageWindow.seriesDays), rule: rule, now: query.now)
        }
        return UsageReport(key: query.key, time: query.now, rule: rule, countedSince: countedSince, parameters: parameters)
    }

    /// Each wanted parameter's evaluations per day of the series (oldest first), summed in the
    /// store: a row per parameter and day, whatever the number of sources and hours.
    private static func dailySeries<Connection: StoreStatements>(
        of wanted: Set<String>, template: [StoreValue], now: Date, on connection: Connection
    ) throws -> [String: [Int64]] {
        let days = UsageWindow.seriesDays, dayMilliseconds: Int64 = 86_400_000
        let end = TemplateStoreRules.milliseconds(UsageWindow.seriesEnd(at: now))
        var series: [String: [Int64]] = [:]
        _ = try connection.rows(
            """
            SELECT parameter, (? - 1 - hour) / \(dayMilliseconds), CAST(SUM(count) AS BIGINT) FROM usage_sources
            WHERE project = ? AND namespace = ? AND hour >= ? AND hour < ? GROUP BY 1, 2
            """,
            [.integer(end)] + template + [.integer(end - Int64(days) * dayMilliseconds), .integer(end)]
        ) { row in
            let parameter = row.text(at: 0), daysAgo = Int(row.int64(at: 1))
            guard wanted.contains(parameter), (0..<days).contains(daysAgo) else { return }
            series[parameter, default: Array(repeating: 0, count: days)][days - 1 - daysAgo] += row.int64(at: 2)
        }
        return series
    }

    /// Adds the counts by app version and platform: a row of one flag to that flag, a row of a
    /// whole answer to every key its version has.
    private static func addClients<Connection: StoreStatements>(
        to counts: inout [String: [UsageCounts]], template: [StoreValue], starts: [StoreValue], on connection: Connection
    ) throws {
        let versionKeys = Dictionary(
            try connection.rows("SELECT version, keys FROM usage_versions WHERE project = ? AND namespace = ?", template) { row in
                (row.int64(at: 0), (try? JSONDecoder().decode([String].self, from: Data(row.bytes(at: 1)))) ?? [])
            }, uniquingKeysWith: { first, _ in first })
        _ = try connection.rows(
            """
            SELECT version, parameter, dimension, value, \(windowSums) FROM usage_clients
            WHERE project = ? AND namespace = ? AND hour >= ? GROUP BY version, parameter, dimension, value
            """,
            starts + template + [starts.last ?? .integer(0)]
        ) { row in
            guard let dimension = ClientDimension(rawValue: row.text(at: 2)) else { return }
            let parameter = row.text(at: 1), value = row.text(at: 3)
            let keys = parameter.isEmpty ? versionKeys[row.int64(at: 0)] ?? [] : [parameter]
            for window in starts.indices {
                let count = row.int64(at: 4 + window)
                guard count > 0 else { continue }
                for key in keys where counts[key] != nil {
                    counts[key]?[window].add(count, dimension, value)
                }
            }
        }
    }
}
