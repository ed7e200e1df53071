import ConfigCore
package import Foundation

/// `UsageStore`, written once for every engine (`UsageRecording`, `UsageReading`). Nothing is
/// announced: usage is read from the store when asked for, and counting must never move the
/// change token.
package struct SQLUsageStore<Engine: DatabaseEngine>: UsageStore {
    let engine: Engine

    package init(engine: Engine) {
        self.engine = engine
    }

    package func record(_ batch: UsageBatch) throws(StoreError) {
        let templates = batch.templates.filter { !$0.isEmpty }.sorted {
            ($0.key.project, $0.key.namespace.rawValue) < ($1.key.project, $1.key.namespace.rawValue)
        }
        guard !templates.isEmpty else { return }
        let hour = TemplateStoreRules.milliseconds(UsageWindow.bucket(of: batch.hour))
        let time = TemplateStoreRules.milliseconds(batch.time)
        try engine.write(announcing: .none) { connection in
            for usage in templates { try UsageRecording.record(usage, hour: hour, time: time, on: connection) }
        }
    }

    package func report(
        _ key: TemplateKey, parameters: [String], publishTime: Date, now: Date, topValues: Int
    ) throws(StoreError) -> UsageReport {
        let query = UsageReading.Query(key: key, parameters: parameters, publishTime: publishTime, now: now, topValues: topValues)
        return try engine.read { connection in
            try UsageReading.report(query, staleDays: try Self.staleDays(project: key.project, on: connection), on: connection)
        }
    }

    package func staleDays(project: String) throws(StoreError) -> Int {
        try engine.read { connection in try Self.staleDays(project: project, on: connection) }
    }

    private static func staleDays(project: String, on connection: some StoreStatements) throws -> Int {
        try connection.rows("SELECT stale_days FROM usage_settings WHERE project = ?", [.text(project)]) { Int($0.int64(at: 0)) }.first
            ?? StalenessRule.defaultDays
    }

    package func setStaleDays(project: String, days: Int) throws(StoreError) {
        guard StalenessRule.allowedDays.contains(days) else {
            throw StoreError.invalidArgument(
                "staleDays must be within \(StalenessRule.allowedDays.lowerBound)...\(StalenessRule.allowedDays.upperBound)")
        }
        try engine.write(announcing: .none) { connection in
            try connection.requireProject(project)
            try connection.run(
                "INSERT INTO usage_settings (project, stale_days) VALUES (?, ?) ON CONFLICT (project) DO UPDATE SET stale_days = excluded.stale_days",
                [.text(project), .integer(Int64(days))])
        }
    }

    package func permanentParameters(project: String) throws(StoreError) -> [PermanentParameter] {
        try engine.read { connection in
            try connection.rows(
                """
                SELECT namespace, parameter, mark_time, marked_by FROM usage_permanent WHERE project = ?
                ORDER BY namespace\(Engine.Connection.bytewiseCollation), parameter\(Engine.Connection.bytewiseCollation)
                """, [.text(project)]
            ) { row in
                PermanentParameter(
                    namespace: TemplateNamespace(rawValue: row.text(at: 0)) ?? .client, key: row.text(at: 1),
                    markTime: TemplateStoreRules.date(milliseconds: row.int64(at: 2)), markedBy: row.text(at: 3))
            }
        }
    }

    package func setPermanent(
        _ key: TemplateKey, parameters: [String], permanent: Bool, actor: String, now: Date
    ) throws(StoreError) -> [String] {
        let template: [StoreValue] = [.text(key.project), .text(key.namespace.rawValue)]
        return try engine.write(announcing: .none) { connection in
            try connection.requireProject(key.project)
            var changed: [String] = []
            for parameter in Set(parameters).sorted() {
                let count = permanent
                    ? try connection.run(
                        """
                        INSERT INTO usage_permanent (project, namespace, parameter, mark_time, marked_by) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (project, namespace, parameter) DO NOTHING
                        """,
                        template + [.text(parameter), .integer(TemplateStoreRules.milliseconds(now)), .text(actor)])
                    : try connection.run(
                        "DELETE FROM usage_permanent WHERE project = ? AND namespace = ? AND parameter = ?", template + [.text(parameter)])
                if count > 0 { changed.append(parameter) }
            }
            return changed
        }
    }

    package func reportStale(_ key: TemplateKey, stale: [StaleParameter], now: Date) throws(StoreError) -> [String] {
        let template: [StoreValue] = [.text(key.project), .text(key.namespace.rawValue)]
        let time = TemplateStoreRules.milliseconds(now)
        return try engine.write(announcing: .none) { connection in
            try UsageRecording.lockTemplate(key, countedSince: time, on: connection)
            let marked = Set(try connection.rows(
                "SELECT parameter FROM usage_parameters WHERE project = ? AND namespace = ? AND stale_reason IS NOT NULL", template
            ) { $0.text(at: 0) })
            let staleKeys = Set(stale.map(\.key))
            for parameter in marked.subtracting(staleKeys).sorted() {
                try connection.run(
                    "UPDATE usage_parameters SET stale_reason = NULL WHERE project = ? AND namespace = ? AND parameter = ?",
                    template + [.text(parameter)])
            }
            var reported: [String] = []
            for parameter in stale.sorted(by: { $0.key < $1.key }) where !marked.contains(parameter.key) {
                let updated = try connection.run(
                    "UPDATE usage_parameters SET stale_reason = ? WHERE project = ? AND namespace = ? AND parameter = ? AND stale_reason IS NULL",
                    [.text(parameter.reason.rawValue)] + template + [.text(parameter.key)])
                guard updated > 0 else { continue }
                try WebhookOutboxSQL.insert(
                    WebhookEvent(type: WebhookEventType.parameterStale.rawValue, project: key.project, namespace: key.namespace.rawValue,
                                 time: now, data: Array(TemplateJSON.encode(StaleEventData(parameter)))),
                    on: connection)
                reported.append(parameter.key)
            }
            return reported
        }
    }

    package func prune(now: Date) throws(StoreError) -> Int {
        let bucket = UsageWindow.bucket(of: now)
        @Sendable func cutoff(days: Int) -> StoreValue {
            .integer(TemplateStoreRules.milliseconds(bucket.addingTimeInterval(-Double(UsageWindow.retentionDays(staleDays: days)) * 86_400)))
        }
        return try engine.write(announcing: .none) { connection in
            // Projects that keep more than the longest window, each to its own cutoff; the rest to it.
            let longer = try connection.rows("SELECT project, stale_days FROM usage_settings WHERE stale_days > ?",
                                             [.integer(Int64(UsageWindow.retentionDays(staleDays: 0)))]) {
                ($0.text(at: 0), Int($0.int64(at: 1)))
            }
            var removed = 0
            for table in ["usage_sources", "usage_clients"] {
                removed += try connection.run(
                    "DELETE FROM \(table) WHERE hour < ? AND project NOT IN (SELECT project FROM usage_settings WHERE stale_days > ?)",
                    [cutoff(days: 0), .integer(Int64(UsageWindow.retentionDays(staleDays: 0)))])
                for (project, days) in longer {
                    removed += try connection.run("DELETE FROM \(table) WHERE project = ? AND hour < ?", [.text(project), cutoff(days: days)])
                }
            }
            removed += try connection.run(
                """
                DELETE FROM usage_versions WHERE NOT EXISTS (SELECT 1 FROM usage_clients c WHERE c.project = usage_versions.project
                    AND c.namespace = usage_versions.namespace AND c.version = usage_versions.version)
                """, [])
            return removed
        }
    }
}

/// The `data` of a `parameter.stale` event.
private struct StaleEventData: Encodable {
    struct Parameter: Encodable {
        let key: String
        let reason: String
        let lastEvaluateTime: Timestamp?
        let staleDays: Int
    }

    let parameter: Parameter

    init(_ stale: StaleParameter) {
        parameter = Parameter(key: stale.key, reason: stale.reason.rawValue, lastEvaluateTime: stale.lastEvaluateTime.map(Timestamp.init),
                              staleDays: stale.staleDays)
    }
}
