public import ConfigStore
public import Foundation

/// The audit log (`audit_log`); appends announce nothing (no worker keeps the log in memory).
extension PostgresTemplateStore {
    /// Serializes appends across nodes (a transaction-level advisory lock, released at commit),
    /// so that ids are taken and committed in the order the times are.
    static let auditAppendLockKey: Int64 = 0x5243_535F_4155_4454  // "RCS_AUDT"

    @discardableResult
    public func appendAudit(_ entry: AuditEntry) throws(StoreError) -> Int64 {
        try read { connection in
            try connection.inTransaction {
                try connection.execute("SELECT pg_advisory_xact_lock($1)", [.integer(Self.auditAppendLockKey)])
                return try insertAudit(entry, on: connection)
            }
        }
    }

    /// Inserts `entry`, timed no earlier than the entry appended before it: an entry kept
    /// after a later one (a refusal queued behind a publish) must not go back in time, or an
    /// export by time window could miss it.
    private func insertAudit(_ entry: AuditEntry, on connection: PostgresConnection) throws -> Int64 {
        try connection.queryFirst(
            """
            INSERT INTO audit_log (time, actor_id, actor_name, origin, request_id, client_address, action, project,
                namespace, target, version_number, diff, outcome)
            VALUES (GREATEST($1, (SELECT time FROM audit_log ORDER BY id DESC LIMIT 1)),
                $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id
            """,
            [.integer(TemplateStoreRules.milliseconds(entry.time)), .text(entry.actorID), .text(entry.actorName),
             .text(entry.origin), .text(entry.requestID), .text(entry.clientAddress), .text(entry.action),
             .text(entry.project), .text(entry.namespace), .text(entry.target), .integer(entry.versionNumber),
             entry.diff.map { .bytes($0) } ?? .null, .text(entry.outcome)]
        ) { $0.int64(at: 0) } ?? 0
    }

    public func auditEntries(_ query: AuditQuery) throws(StoreError) -> (entries: [AuditEntry], nextPageToken: String?) {
        let (size, before) = try TemplateStoreRules.auditPage(query)
        let filters = StoreColumns.auditFilters(query)
        let conditions = ["id < $1", "time >= $2", "time < $3"] + filters.enumerated().map { "\($1.column) = $\($0 + 4)" }
        let values: [PostgresValue] = [
            .integer(before), .integer(query.startTime.map(TemplateStoreRules.milliseconds) ?? .min),
            .integer(query.endTime.map(TemplateStoreRules.milliseconds) ?? .max),
        ] + filters.map { .text($0.value) } + [.integer(Int64(size) + 1)]
        let entries = try read { connection in
            try connection.query(
                "SELECT \(StoreColumns.auditEntry { "(\($0) IS NULL)::int" }) FROM audit_log "
                    + "WHERE \(conditions.joined(separator: " AND ")) ORDER BY id DESC LIMIT $\(filters.count + 4)", values
            ) { StoreColumns.decodeAuditEntry($0) }
        }
        return TemplateStoreRules.auditPage(entries, size: size)
    }

    @discardableResult
    public func pruneAudit(before cutoff: Date) throws(StoreError) -> Int {
        try read { connection in
            try connection.execute("DELETE FROM audit_log WHERE time < $1", [.integer(TemplateStoreRules.milliseconds(cutoff))])
                .affectedRows
        }
    }
}
