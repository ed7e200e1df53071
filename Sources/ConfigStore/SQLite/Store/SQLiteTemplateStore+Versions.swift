public import ConfigCore
import Foundation

extension SQLiteTemplateStore {
    /// The active (newest) version, or nil before the first publish.
    public func activeVersion(project: String, namespace: TemplateNamespace) throws(StoreError) -> StoredVersion? {
        try read { database in
            try database.queryFirst(
                """
                SELECT \(Self.versionColumns(includeTemplateJSON: true)) FROM template_heads h
                JOIN template_versions v ON v.project = h.project AND v.namespace = h.namespace
                    AND v.version_number = h.active_version
                WHERE h.project = ? AND h.namespace = ?
                """,
                [.text(project), .text(namespace)]
            ) { try Self.decodeVersion($0, includeTemplateJSON: true) }
        }
    }

    /// Version `number`, or nil if it was never published or has been pruned.
    public func version(project: String, namespace: TemplateNamespace, number: Int64) throws(StoreError) -> StoredVersion? {
        try read { database in
            try Self.version(project: project, namespace: namespace, number: number, includeTemplateJSON: true, in: database)
        }
    }

    /// Stored versions, newest first, one page at a time (the `listVersions` API). The token
    /// of the next page is "v" and its newest version number.
    public func listVersions(
        project: String, namespace: TemplateNamespace, query: VersionQuery
    ) throws(StoreError) -> (versions: [StoredVersion], nextPageToken: String?) {
        let (pageSize, endVersionNumber, startTime, endTime) = (query.pageSize, query.endVersionNumber, query.startTime, query.endTime)
        let includeTemplateJSON = query.includeTemplateJSON
        if let pageSize, pageSize < 1 {
            throw StoreError.invalidArgument("pageSize must be at least 1, got \(pageSize)")
        }
        if let endVersionNumber, endVersionNumber < 1 {
            throw StoreError.invalidArgument("endVersionNumber must be greater than 0, got \(endVersionNumber)")
        }
        let tokenNewest = try TemplateStoreRules.decodePageToken(query.pageToken)
        let newest = min(endVersionNumber ?? .max, tokenNewest ?? .max)
        let limit = pageSize.map { Int64($0) + 1 } ?? -1  // one extra row tells whether a next page exists
        var versions = try read { database in
            try database.query(
                """
                SELECT \(Self.versionColumns(includeTemplateJSON: includeTemplateJSON)) FROM template_versions v
                WHERE v.project = ? AND v.namespace = ? AND v.version_number <= ?
                    AND v.update_time >= ? AND v.update_time < ?
                ORDER BY v.version_number DESC LIMIT ?
                """,
                [.text(project), .text(namespace), .integer(newest),
                 .integer(startTime.map(Self.milliseconds) ?? .min), .integer(endTime.map(Self.milliseconds) ?? .max),
                 .integer(limit)]
            ) { try Self.decodeVersion($0, includeTemplateJSON: includeTemplateJSON) }
        }
        guard let pageSize, versions.count > pageSize else { return (versions, nil) }
        let next = versions.removeLast()
        return (versions, TemplateStoreRules.encodePageToken(next.versionNumber))
    }

    // MARK: Rows

    static func version(
        project: String, namespace: TemplateNamespace, number: Int64, includeTemplateJSON: Bool, in database: SQLiteDatabase
    ) throws -> StoredVersion? {
        try database.queryFirst(
            """
            SELECT \(versionColumns(includeTemplateJSON: includeTemplateJSON)) FROM template_versions v
            WHERE v.project = ? AND v.namespace = ? AND v.version_number = ?
            """,
            [.text(project), .text(namespace), .integer(number)]
        ) { try decodeVersion($0, includeTemplateJSON: includeTemplateJSON) }
    }

    private static func versionColumns(includeTemplateJSON: Bool) -> String {
        "v.project, v.namespace, v.version_number, v.update_time, v.update_user, v.description, "
            + "v.update_origin, v.update_type, v.rollback_source, v.canary_action, v.canary_source"
            + (includeTemplateJSON ? ", v.template_json" : "")
    }

    private static func decodeVersion(_ row: SQLiteStatement, includeTemplateJSON: Bool) throws -> StoredVersion {
        StoredVersion(
            project: row.text(at: 0), namespace: try Self.namespace(row.text(at: 1)), versionNumber: row.int64(at: 2),
            updateTime: date(milliseconds: row.int64(at: 3)), updateUser: row.optionalText(at: 4),
            description: row.optionalText(at: 5), updateOrigin: row.text(at: 6), updateType: UpdateType(rawValue: row.text(at: 7)),
            rollbackSource: row.optionalInt64(at: 8), canaryAction: try row.optionalText(at: 9).map(Self.canaryAction), canarySource: row.optionalInt64(at: 10),
            templateJSON: includeTemplateJSON ? row.blob(at: 11) : [])
    }
}
