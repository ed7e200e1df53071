import ConfigCore

/// The steps of a template operation, in the read or write transaction the caller runs: the
/// SQL of each step, once for both engines; `TemplateVersioning` decides what to run and in
/// which order.
///
/// **Events.** `insertEvent(_:)` writes a webhook event to the outbox in the transaction the
/// caller runs: `TemplateVersioning` calls it for every publish, rollback and canary step, so
/// the event commits (or not) with the change it reports. Any other write transaction that
/// makes a change webhooks report (a change request's step) calls it the same way on its own
/// connection; a change made outside any such transaction uses `WebhookStore.appendEvent(_:)`,
/// which runs it in a transaction of its own.
extension StoreConnection {
    /// The active version of `key`, read for a write: holds whatever keeps the other writers of
    /// `key` waiting until this transaction ends (`lockHeadRow`).
    /// - Parameter creatingIt: the write may be the template's first version.
    /// - Throws: `StoreError.projectNotFound` for an unknown project.
    package func lockHead(of key: TemplateKey, creatingIt: Bool) throws -> TemplateHead {
        guard let active = try lockHeadRow(of: key, creatingIt: creatingIt) else {
            try requireProject(key.project)
            return .none
        }
        guard active > 0 else { return .none }
        // A statement of its own, after the lock: on PostgreSQL a statement that waited for the
        // head row returns that writer's row but still sees the versions of its own snapshot.
        let updateTime = try rows(
            "SELECT update_time FROM template_versions WHERE project = ? AND namespace = ? AND version_number = ?",
            Self.values(key) + [.integer(active)]) { $0.int64(at: 0) }.first
        return TemplateHead(number: active, updateTime: updateTime)
    }

    /// - Throws: `StoreError.projectNotFound` unless a project has this id.
    package func requireProject(_ id: String) throws {
        guard try !rows("SELECT 1 FROM projects WHERE id = ?", [.text(id)], { _ in true }).isEmpty else {
            throw StoreError.projectNotFound(id)
        }
    }

    // MARK: Canaries

    /// The running canary of `key`, if any.
    package func canary(of key: TemplateKey) throws -> StoredCanary? {
        try rows("SELECT \(StoreColumns.canary) FROM template_canaries c WHERE c.project = ? AND c.namespace = ?",
                 Self.values(key)) { StoreColumns.decodeCanary($0, from: 0, of: key) }.first
    }

    package func insertCanary(_ canary: StoredCanary) throws {
        try run(
            """
            INSERT INTO template_canaries (project, namespace, canary_version, micro_percent, seed, started_at,
                updated_at, update_user, promote_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [.text(canary.project), .text(canary.namespace.rawValue), .integer(canary.canaryVersion),
             .integer(canary.microPercent), .text(canary.seed), .integer(TemplateStoreRules.milliseconds(canary.startTime)),
             .integer(TemplateStoreRules.milliseconds(canary.updateTime)), .text(canary.updateUser),
             .integer(canary.promoteAt.map(TemplateStoreRules.milliseconds))])
    }

    /// Records the canary's share, update time and update user.
    package func updateCanary(_ canary: StoredCanary) throws {
        try run(
            "UPDATE template_canaries SET micro_percent = ?, updated_at = ?, update_user = ? WHERE project = ? AND namespace = ?",
            [.integer(canary.microPercent), .integer(TemplateStoreRules.milliseconds(canary.updateTime)),
             .text(canary.updateUser), .text(canary.project), .text(canary.namespace.rawValue)])
    }

    package func deleteCanary(of key: TemplateKey) throws {
        try run("DELETE FROM template_canaries WHERE project = ? AND namespace = ?", Self.values(key))
    }

    // MARK: Versions

    /// Inserts `version` without making it active.
    package func insert(_ version: StoredVersion) throws {
        try run(
            """
            INSERT INTO template_versions (project, namespace, version_number, template_json, update_time,
                update_user, description, update_origin, update_type, rollback_source, canary_action, canary_source,
                promoted_from_environment, promoted_from_version)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [.text(version.project), .text(version.namespace.rawValue), .integer(version.versionNumber),
             .bytes(version.templateJSON), .integer(TemplateStoreRules.milliseconds(version.updateTime)),
             .text(version.updateUser), .text(version.description), .text(version.updateOrigin),
             .text(version.updateType.rawValue), .integer(version.rollbackSource), .text(version.canaryAction?.rawValue),
             .integer(version.canarySource), .text(version.promotedFrom?.environment.rawValue),
             .integer(version.promotedFrom?.versionNumber)])
    }

    /// Makes version `number` the active one, whether or not `key` has a head row yet.
    package func setHead(of key: TemplateKey, to number: Int64) throws {
        try run(
            """
            INSERT INTO template_heads (project, namespace, active_version) VALUES (?, ?, ?)
            ON CONFLICT (project, namespace) DO UPDATE SET active_version = excluded.active_version
            """,
            Self.values(key) + [.integer(number)])
    }

    /// Deletes the versions of `key` numbered `newest` and below.
    package func deleteVersions(of key: TemplateKey, through newest: Int64) throws {
        try run("DELETE FROM template_versions WHERE project = ? AND namespace = ? AND version_number <= ?",
                Self.values(key) + [.integer(newest)])
    }

    /// Version `number` with its template, or nil.
    package func version(of key: TemplateKey, number: Int64) throws -> StoredVersion? {
        try rows(
            """
            SELECT \(StoreColumns.version(includeTemplateJSON: true)) FROM template_versions v
            WHERE v.project = ? AND v.namespace = ? AND v.version_number = ?
            """,
            Self.values(key) + [.integer(number)]
        ) { try StoreColumns.decodeVersion($0, namespace: key.namespace, includeTemplateJSON: true) }.first
    }

    /// The active version with its template, or nil before the first publish.
    package func activeVersion(of key: TemplateKey) throws -> StoredVersion? {
        try rows(
            """
            SELECT \(StoreColumns.version(includeTemplateJSON: true)) FROM template_heads h
            JOIN template_versions v ON v.project = h.project AND v.namespace = h.namespace
                AND v.version_number = h.active_version
            WHERE h.project = ? AND h.namespace = ?
            """,
            Self.values(key)
        ) { try StoreColumns.decodeVersion($0, namespace: key.namespace, includeTemplateJSON: true) }.first
    }

    /// The active version's number and the running canary: one statement, so one snapshot.
    package func headState(of key: TemplateKey) throws -> (active: Int64?, canary: StoredCanary?) {
        try rows(
            """
            SELECT h.active_version, \(StoreColumns.canary)
            FROM (SELECT CAST(? AS TEXT) AS project, CAST(? AS TEXT) AS namespace) k
            LEFT JOIN template_heads h ON h.project = k.project AND h.namespace = k.namespace
            LEFT JOIN template_canaries c ON c.project = k.project AND c.namespace = k.namespace
            """,
            Self.values(key)
        ) { row in
            (row.optionalInt64(at: 0), row.isNull(at: 1) ? nil : StoreColumns.decodeCanary(row, from: 1, of: key))
        }.first ?? (nil, nil)
    }

    /// The versions of `key` that `selection` picks, newest first.
    package func versions(of key: TemplateKey, _ selection: VersionSelection) throws -> [StoredVersion] {
        try rows(
            """
            SELECT \(StoreColumns.version(includeTemplateJSON: selection.includeTemplateJSON)) FROM template_versions v
            WHERE v.project = ? AND v.namespace = ? AND v.version_number <= ?
                AND v.update_time >= ? AND v.update_time < ?
            ORDER BY v.version_number DESC LIMIT ?
            """,
            // No limit is the largest one: the dialects spell "none" differently.
            Self.values(key) + [.integer(selection.newest), .integer(selection.updatedFrom), .integer(selection.updatedBefore),
                                .integer(selection.limit ?? .max)]
        ) { try StoreColumns.decodeVersion($0, namespace: key.namespace, includeTemplateJSON: selection.includeTemplateJSON) }
    }

    /// The active version of every template that has one.
    package func heads() throws -> [TemplateKey: Int64] {
        let rows = try rows("SELECT project, namespace, active_version FROM template_heads", []) {
            (TemplateKey(project: $0.text(at: 0), namespace: try StoreColumns.namespace($0.text(at: 1))), $0.int64(at: 2))
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    // MARK: In the same transaction

    /// Marks change request `completion.id` of `key` applied by `version`, if it is still at
    /// the revision read and in a status a publish may complete; whether it was.
    package func completeChangeRequest(
        _ completion: ChangeRequestCompletion, of key: TemplateKey, version: Int64, time: Int64
    ) throws -> Bool {
        try run(
            """
            UPDATE change_requests SET status = 'applied', applied_version = ?, schedule_time = NULL,
                revision = revision + 1, update_time = ?, record = coalesce(?, record)
            WHERE id = ? AND project = ? AND namespace = ? AND revision = ?
                AND status IN (\(StoreColumns.completableStatuses))
            """,
            [.integer(version), .integer(time), .bytes(completion.record), .integer(completion.id)]
                + Self.values(key) + [.integer(completion.expectedRevision)]) == 1
    }

    /// Writes `event` to the webhook outbox, with one pending delivery for each endpoint of its
    /// project that wants its type; writes nothing when none does (`WebhookOutboxSQL.insert`).
    package func insertEvent(_ event: WebhookEvent) throws {
        try WebhookOutboxSQL.insert(event, on: self)
    }

    /// A template's key columns, `project = ? AND namespace = ?`.
    private static func values(_ key: TemplateKey) -> [StoreValue] {
        [.text(key.project), .text(key.namespace.rawValue)]
    }
}

/// The active version of a template, as a write that holds its head sees it.
package struct TemplateHead: Sendable, Equatable {
    /// 0 before the first publish.
    package var number: Int64
    /// The active version's `update_time` in milliseconds, nil before the first publish.
    package var updateTime: Int64?

    package init(number: Int64, updateTime: Int64?) {
        self.number = number
        self.updateTime = updateTime
    }

    /// No version yet.
    package static let none = TemplateHead(number: 0, updateTime: nil)
}

/// The rows one `listVersions` page reads: the versions numbered `newest` and below updated in
/// `updatedFrom ..< updatedBefore` (milliseconds), newest first, at most `limit` of them.
package struct VersionSelection: Sendable, Equatable {
    package var newest: Int64
    package var updatedFrom: Int64
    package var updatedBefore: Int64
    /// nil for all.
    package var limit: Int64?
    package var includeTemplateJSON: Bool
}
