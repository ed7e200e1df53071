public import ConfigCore
public import ConfigStore
import Foundation

extension PostgresTemplateStore {
    /// The active version with its template, or nil before the first publish.
    public func activeVersion(project: String, namespace: TemplateNamespace) throws(StoreError) -> StoredVersion? {
        try read { connection in
            try connection.queryFirst(
                """
                SELECT \(Self.versionColumns(includeTemplateJSON: true)) FROM template_heads h
                JOIN template_versions v ON v.project = h.project AND v.namespace = h.namespace
                    AND v.version_number = h.active_version
                WHERE h.project = $1 AND h.namespace = $2
                """,
                [.text(project), .text(namespace.rawValue)]
            ) { try Self.decodeVersion($0, namespace: namespace, includeTemplateJSON: true) }
        }
    }

    /// Version `number`, or nil if it was never published or has been pruned.
    public func version(
        project: String, namespace: TemplateNamespace, number: Int64
    ) throws(StoreError) -> StoredVersion? {
        try read { connection in
            try Self.version(project: project, namespace: namespace, number: number, includeTemplateJSON: true, on: connection)
        }
    }

    /// Stored versions, newest first, one page at a time; see `TemplateStore.listVersions`.
    public func listVersions(
        project: String, namespace: TemplateNamespace, query: VersionQuery
    ) throws(StoreError) -> (versions: [StoredVersion], nextPageToken: String?) {
        try TemplateStoreRules.validateListing(pageSize: query.pageSize, endVersionNumber: query.endVersionNumber)
        let tokenNewest = try TemplateStoreRules.decodePageToken(query.pageToken)
        let newest = min(query.endVersionNumber ?? .max, tokenNewest ?? .max)
        let limit = query.pageSize.map { Int64($0) + 1 }  // one extra row tells whether a next page exists
        let includeTemplateJSON = query.includeTemplateJSON
        var versions = try read { connection in
            try connection.query(
                """
                SELECT \(Self.versionColumns(includeTemplateJSON: includeTemplateJSON)) FROM template_versions v
                WHERE v.project = $1 AND v.namespace = $2 AND v.version_number <= $3
                    AND v.update_time >= $4 AND v.update_time < $5
                ORDER BY v.version_number DESC LIMIT $6
                """,
                [.text(project), .text(namespace.rawValue), .integer(newest),
                 .integer(query.startTime.map(TemplateStoreRules.milliseconds) ?? .min),
                 .integer(query.endTime.map(TemplateStoreRules.milliseconds) ?? .max), .integer(limit)]
            ) { try Self.decodeVersion($0, namespace: namespace, includeTemplateJSON: includeTemplateJSON) }
        }
        guard let pageSize = query.pageSize, versions.count > pageSize else { return (versions, nil) }
        let next = versions.removeLast()
        return (versions, TemplateStoreRules.encodePageToken(next.versionNumber))
    }

    // MARK: Rows

    static func version(
        project: String, namespace: TemplateNamespace, number: Int64, includeTemplateJSON: Bool,
        on connection: PostgresConnection
    ) throws -> StoredVersion? {
        try connection.queryFirst(
            """
            SELECT \(versionColumns(includeTemplateJSON: includeTemplateJSON)) FROM template_versions v
            WHERE v.project = $1 AND v.namespace = $2 AND v.version_number = $3
            """,
            [.text(project), .text(namespace.rawValue), .integer(number)]
        ) { try decodeVersion($0, namespace: namespace, includeTemplateJSON: includeTemplateJSON) }
    }

    private static func versionColumns(includeTemplateJSON: Bool) -> String {
        "v.project, v.version_number, v.update_time, v.update_user, v.description, "
            + "v.update_origin, v.update_type, v.rollback_source, v.canary_action, v.canary_source"
            + (includeTemplateJSON ? ", v.template_json" : "")
    }

    /// Every query of versions filters on one namespace, which is therefore not read back.
    private static func decodeVersion(
        _ row: PostgresRow, namespace: TemplateNamespace, includeTemplateJSON: Bool
    ) throws -> StoredVersion {
        let canaryAction = try row.optionalText(at: 8).map { raw throws(StoreError) in
            guard let action = CanaryAction(rawValue: raw) else {
                throw StoreError.unavailable("the database holds an unknown canary_action '\(raw)'")
            }
            return action
        }
        return StoredVersion(
            project: row.text(at: 0), namespace: namespace, versionNumber: row.int64(at: 1),
            updateTime: TemplateStoreRules.date(milliseconds: row.int64(at: 2)), updateUser: row.optionalText(at: 3),
            description: row.optionalText(at: 4), updateOrigin: row.text(at: 5),
            updateType: UpdateType(rawValue: row.text(at: 6)), rollbackSource: row.optionalInt64(at: 7),
            canaryAction: canaryAction, canarySource: row.optionalInt64(at: 9),
            templateJSON: includeTemplateJSON ? row.bytes(at: 10) : [])
    }
}
