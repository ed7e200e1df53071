package import ConfigCore

/// A result row as the store reads it. SQLite's statement and PostgreSQL's row both read so,
/// which lets the engines select the same columns and decode them with one piece of code.
package protocol StoreRow {
    func isNull(at column: Int) -> Bool
    func int64(at column: Int) -> Int64
    func optionalInt64(at column: Int) -> Int64?
    func text(at column: Int) -> String
    func optionalText(at column: Int) -> String?
    func bytes(at column: Int) -> [UInt8]
}

/// The columns both engines select, and how their rows decode.
package enum StoreColumns {
    /// Of `projects`.
    package static let project = "id, number, display_name, percent_seed"

    /// A row of `project`.
    package static func decodeProject(_ row: some StoreRow) -> StoredProject {
        StoredProject(id: row.text(at: 0), number: row.text(at: 1), displayName: row.text(at: 2), percentSeed: row.text(at: 3))
    }

    /// Of `api_keys`.
    package static let apiKey = "key_hash, name, created_at, environment"

    /// A row of `apiKey` starting at `first`.
    package static func decodeAPIKey(_ row: some StoreRow, from first: Int = 0) -> StoredAPIKey {
        StoredAPIKey(keyHash: row.text(at: first), name: row.text(at: first + 1),
                     createTime: TemplateStoreRules.date(milliseconds: row.int64(at: first + 2)),
                     environment: EnvironmentID(rawValue: row.text(at: first + 3)) ?? .production)
    }

    /// Of `environments`.
    package static let environment = "project, id, display_name, position, soak_seconds, created_at"

    /// A row of `environment`; nil for an id this server cannot read.
    package static func decodeEnvironment(_ row: some StoreRow) -> StoredEnvironment? {
        EnvironmentID(rawValue: row.text(at: 1)).map { id in
            StoredEnvironment(project: row.text(at: 0), id: id, displayName: row.text(at: 2), position: row.int64(at: 3),
                              soakSeconds: row.int64(at: 4), createTime: TemplateStoreRules.date(milliseconds: row.int64(at: 5)))
        }
    }

    /// Of `access_records`.
    package static let accessRecord = "kind, id, record, update_time"

    /// A row of `accessRecord`.
    package static func decodeAccessRecord(_ row: some StoreRow) throws(StoreError) -> StoredAccessRecord {
        guard let kind = StoredAccessRecord.Kind(rawValue: row.text(at: 0)) else {
            throw StoreError.unavailable("the database holds an unknown access record kind '\(row.text(at: 0))'")
        }
        return StoredAccessRecord(kind: kind, id: row.text(at: 1), record: row.bytes(at: 2),
                                  updateTime: TemplateStoreRules.date(milliseconds: row.int64(at: 3)))
    }

    /// Of `audit_log`.
    package static let auditEntry = "id, time, actor_id, actor_name, origin, request_id, client_address, action, project, "
        + "namespace, target, version_number, diff, outcome"

    /// A row of `auditEntry`.
    package static func decodeAuditEntry(_ row: some StoreRow) -> AuditEntry {
        AuditEntry(
            id: row.int64(at: 0), time: TemplateStoreRules.date(milliseconds: row.int64(at: 1)), actorID: row.text(at: 2),
            actorName: row.text(at: 3), origin: row.text(at: 4), requestID: row.text(at: 5), clientAddress: row.text(at: 6),
            action: row.text(at: 7), project: row.optionalText(at: 8), namespace: row.optionalText(at: 9),
            target: row.optionalText(at: 10), versionNumber: row.optionalInt64(at: 11),
            diff: row.isNull(at: 12) ? nil : row.bytes(at: 12), outcome: row.text(at: 13))
    }

    /// The filters of an audit query, as `column = ?` pairs in a fixed order.
    package static func auditFilters(_ query: AuditQuery) -> [(column: String, value: String)] {
        [("actor_id", query.actorID), ("action", query.action), ("project", query.project)].compactMap { column, value in
            value.map { (column, $0) }
        }
    }

    /// Of `template_versions v`. The namespace is not read back: every query of versions
    /// filters on one.
    package static func version(includeTemplateJSON: Bool) -> String {
        "v.project, v.version_number, v.update_time, v.update_user, v.description, "
            + "v.update_origin, v.update_type, v.rollback_source, v.canary_action, v.canary_source, "
            + "v.promoted_from_environment, v.promoted_from_version"
            + (includeTemplateJSON ? ", v.template_json" : "")
    }

    /// Of `template_canaries c`.
    package static let canary =
        "c.canary_version, c.micro_percent, c.seed, c.started_at, c.updated_at, c.update_user, c.promote_at"

    /// A row of `version(includeTemplateJSON:)` from a query of `namespace`.
    package static func decodeVersion(
        _ row: some StoreRow, namespace: TemplateNamespace, includeTemplateJSON: Bool
    ) throws(StoreError) -> StoredVersion {
        StoredVersion(
            project: row.text(at: 0), namespace: namespace, versionNumber: row.int64(at: 1),
            updateTime: TemplateStoreRules.date(milliseconds: row.int64(at: 2)), updateUser: row.optionalText(at: 3),
            description: row.optionalText(at: 4), updateOrigin: row.text(at: 5),
            updateType: UpdateType(rawValue: row.text(at: 6)), rollbackSource: row.optionalInt64(at: 7),
            canaryAction: try row.optionalText(at: 8).map(canaryAction), canarySource: row.optionalInt64(at: 9),
            promotedFrom: row.optionalText(at: 10).flatMap(EnvironmentID.init(rawValue:)).map {
                PromotionSource(environment: $0, versionNumber: row.optionalInt64(at: 11) ?? 0)
            },
            templateJSON: includeTemplateJSON ? row.bytes(at: 12) : [])
    }

    /// The canary of `key` whose `canary` columns start at column `first`.
    package static func decodeCanary(_ row: some StoreRow, from first: Int, of key: TemplateKey) -> StoredCanary {
        StoredCanary(
            project: key.project, namespace: key.namespace, canaryVersion: row.int64(at: first),
            microPercent: row.int64(at: first + 1), seed: row.text(at: first + 2),
            startTime: TemplateStoreRules.date(milliseconds: row.int64(at: first + 3)),
            updateTime: TemplateStoreRules.date(milliseconds: row.int64(at: first + 4)),
            updateUser: row.optionalText(at: first + 5),
            promoteAt: row.optionalInt64(at: first + 6).map(TemplateStoreRules.date(milliseconds:)))
    }

    /// A namespace read back from a table.
    package static func namespace(_ raw: String) throws(StoreError) -> TemplateNamespace {
        guard let namespace = TemplateNamespace(rawValue: raw) else {
            throw StoreError.unavailable("the database holds an unknown namespace '\(raw)'")
        }
        return namespace
    }

    private static func canaryAction(_ raw: String) throws(StoreError) -> CanaryAction {
        guard let action = CanaryAction(rawValue: raw) else {
            throw StoreError.unavailable("the database holds an unknown canary action '\(raw)'")
        }
        return action
    }
}
