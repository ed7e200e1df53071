package import Foundation

/// `AuditLog`, written once for every engine. Nothing is announced: no worker keeps the log in
/// memory.
package struct SQLAuditLog<Engine: DatabaseEngine>: AuditLog {
    let engine: Engine

    package init(engine: Engine) {
        self.engine = engine
    }

    /// Timed no earlier than the entry appended before it: an entry kept after a later one (a
    /// refusal queued behind a publish) must not go back in time, or an export by time window
    /// could miss it.
    @discardableResult
    package func append(_ entry: AuditEntry) throws(StoreError) -> Int64 {
        let time = StoreValue.integer(TemplateStoreRules.milliseconds(entry.time))
        // The lock keeps appends in turn, so ids are taken and committed in the order of the
        // times: an entry is timed no earlier than the one before, read in the same statement.
        return try engine.write(announcing: .none, holding: .audit) { connection in
            try connection.rows(
                """
                INSERT INTO audit_log (time, actor_id, actor_name, origin, request_id, client_address, action, project,
                    namespace, target, version_number, diff, outcome)
                SELECT CASE WHEN previous.time > ? THEN previous.time ELSE ? END, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
                FROM (SELECT (SELECT time FROM audit_log ORDER BY id DESC LIMIT 1) AS time) AS previous
                RETURNING id
                """,
                [time, time, .text(entry.actorID), .text(entry.actorName), .text(entry.origin), .text(entry.requestID),
                 .text(entry.clientAddress), .text(entry.action), .text(entry.project), .text(entry.namespace),
                 .text(entry.target), .integer(entry.versionNumber), .bytes(entry.diff), .text(entry.outcome)]
            ) { $0.int64(at: 0) }.first ?? 0
        }
    }

    package func entries(_ query: AuditQuery) throws(StoreError) -> (entries: [AuditEntry], nextPageToken: String?) {
        let (size, before) = try TemplateStoreRules.auditPage(query)
        let filters = StoreColumns.auditFilters(query)
        let conditions = ["id < ?", "time >= ?", "time < ?"] + filters.map { "\($0.column) = ?" }
        let values: [StoreValue] = [
            .integer(before), .integer(query.startTime.map(TemplateStoreRules.milliseconds) ?? .min),
            .integer(query.endTime.map(TemplateStoreRules.milliseconds) ?? .max),
        ] + filters.map { .text($0.value) } + [.integer(Int64(size) + 1)]
        let entries = try engine.read { connection in
            try connection.rows(
                "SELECT \(StoreColumns.auditEntry) FROM audit_log WHERE \(conditions.joined(separator: " AND ")) ORDER BY id DESC LIMIT ?",
                values) { StoreColumns.decodeAuditEntry($0) }
        }
        return TemplateStoreRules.auditPage(entries, size: size)
    }

    @discardableResult
    package func prune(before cutoff: Date) throws(StoreError) -> Int {
        try engine.write(announcing: .none) { connection in
            try connection.run("DELETE FROM audit_log WHERE time < ?", [.integer(TemplateStoreRules.milliseconds(cutoff))])
        }
    }
}
