public import Foundation

/// The audit log (`audit_log`).
extension SQLiteTemplateStore {
    /// Timed no earlier than the entry appended before it (read in the write transaction, which
    /// every worker takes in turn): an entry kept after a later one (a refusal queued behind a
    /// publish) must not go back in time, or an export by time window could miss it.
    @discardableResult
    public func appendAudit(_ entry: AuditEntry) throws(StoreError) -> Int64 {
        try write { database in
            try database.execute(
                """
                INSERT INTO audit_log (time, actor_id, actor_name, origin, request_id, client_address, action, project,
                    namespace, target, version_number, diff, outcome)
                VALUES (COALESCE(MAX(?, (SELECT time FROM audit_log ORDER BY id DESC LIMIT 1)), ?),
                    ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.integer(TemplateStoreRules.milliseconds(entry.time)), .integer(TemplateStoreRules.milliseconds(entry.time)),
                 .text(entry.actorID), .text(entry.actorName),
                 .text(entry.origin), .text(entry.requestID), .text(entry.clientAddress), .text(entry.action),
                 .text(entry.project), .text(entry.namespace), .text(entry.target), .integer(entry.versionNumber),
                 entry.diff.map { .blob($0) } ?? .null, .text(entry.outcome)])
            return database.lastInsertedRowID
        }
    }

    public func auditEntries(_ query: AuditQuery) throws(StoreError) -> (entries: [AuditEntry], nextPageToken: String?) {
        let (size, before) = try TemplateStoreRules.auditPage(query)
        let filters = StoreColumns.auditFilters(query)
        let conditions = ["id < ?", "time >= ?", "time < ?"] + filters.map { "\($0.column) = ?" }
        let values: [SQLiteValue] = [
            .integer(before), .integer(query.startTime.map(TemplateStoreRules.milliseconds) ?? .min),
            .integer(query.endTime.map(TemplateStoreRules.milliseconds) ?? .max),
        ] + filters.map { .text($0.value) } + [.integer(Int64(size) + 1)]
        let entries = try read { database in
            try database.query(
                "SELECT \(StoreColumns.auditEntry { "\($0) IS NULL" }) FROM audit_log WHERE \(conditions.joined(separator: " AND ")) "
                    + "ORDER BY id DESC LIMIT ?", values
            ) { StoreColumns.decodeAuditEntry($0) }
        }
        return TemplateStoreRules.auditPage(entries, size: size)
    }

    @discardableResult
    public func pruneAudit(before cutoff: Date) throws(StoreError) -> Int {
        try write { database in
            try database.execute("DELETE FROM audit_log WHERE time < ?", [.integer(TemplateStoreRules.milliseconds(cutoff))])
        }
    }
}
