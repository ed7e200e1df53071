import ConfigCore

/// The SQL of each template step on SQLite. Writes run on the writer connection inside
/// `BEGIN IMMEDIATE`, which already keeps every other writer out: reading the head locks nothing
/// more.
package struct SQLiteTemplateConnection: TemplateConnection {
    let database: SQLiteDatabase

    package func lockHead(of key: TemplateKey, creatingIt: Bool) throws -> TemplateHead {
        let head = try database.queryFirst(
            """
            SELECT v.version_number, v.update_time FROM template_heads h
            JOIN template_versions v ON v.project = h.project AND v.namespace = h.namespace
                AND v.version_number = h.active_version
            WHERE h.project = ? AND h.namespace = ?
            """,
            [.text(key.project), .text(key.namespace)]
        ) { TemplateHead(number: $0.int64(at: 0), updateTime: $0.int64(at: 1)) }
        if let head { return head }
        try requireProject(key.project)
        return .none
    }

    package func requireProject(_ id: String) throws {
        let exists = try database.queryFirst("SELECT 1 FROM projects WHERE id = ?", [.text(id)]) { _ in true }
        guard exists != nil else { throw StoreError.projectNotFound(id) }
    }

    // MARK: Canaries

    package func canary(of key: TemplateKey) throws -> StoredCanary? {
        try database.queryFirst(
            "SELECT \(StoreColumns.canary) FROM template_canaries c WHERE c.project = ? AND c.namespace = ?",
            [.text(key.project), .text(key.namespace)]
        ) { StoreColumns.decodeCanary($0, from: 0, of: key) }
    }

    package func insertCanary(_ canary: StoredCanary) throws {
        try database.execute(
            """
            INSERT INTO template_canaries (project, namespace, canary_version, micro_percent, seed, started_at,
                updated_at, update_user, promote_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [.text(canary.project), .text(canary.namespace), .integer(canary.canaryVersion),
             .integer(canary.microPercent), .text(canary.seed), .integer(TemplateStoreRules.milliseconds(canary.startTime)),
             .integer(TemplateStoreRules.milliseconds(canary.updateTime)), .text(canary.updateUser),
             .integer(canary.promoteAt.map(TemplateStoreRules.milliseconds))])
    }

    package func updateCanary(_ canary: StoredCanary) throws {
        try database.execute(
            "UPDATE template_canaries SET micro_percent = ?, updated_at = ?, update_user = ? WHERE project = ? AND namespace = ?",
            [.integer(canary.microPercent), .integer(TemplateStoreRules.milliseconds(canary.updateTime)),
             .text(canary.updateUser), .text(canary.project), .text(canary.namespace)])
    }

    package func completeChangeRequest(
        _ completion: ChangeRequestCompletion, of key: TemplateKey, version: Int64, time: Int64
    ) throws -> Bool {
        try database.execute(
            """
            UPDATE change_requests SET status = 'applied', applied_version = ?, schedule_time = NULL,
                revision = revision + 1, update_time = ?, record = coalesce(?, record)
            WHERE id = ? AND project = ? AND namespace = ? AND revision = ?
                AND status IN (\(StoreColumns.applicableStatuses))
            """,
            [.integer(version), .integer(time), completion.record.map { .blob($0) } ?? .null, .integer(completion.id),
             .text(key.project), .text(key.namespace.rawValue), .integer(completion.expectedRevision)]) == 1
    }

    package func deleteCanary(of key: TemplateKey) throws {
        try database.execute(
            "DELETE FROM template_canaries WHERE project = ? AND namespace = ?", [.text(key.project), .text(key.namespace)])
    }

    // MARK: Versions

    package func insert(_ version: StoredVersion) throws {
        try database.execute(
            """
            INSERT INTO template_versions (project, namespace, version_number, template_json, update_time,
                update_user, description, update_origin, update_type, rollback_source, canary_action, canary_source)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(version.project), .text(version.namespace),
                .integer(version.versionNumber), .blob(version.templateJSON),
                .integer(TemplateStoreRules.milliseconds(version.updateTime)), .text(version.updateUser),
                .text(version.description), .text(version.updateOrigin), .text(version.updateType),
                .integer(version.rollbackSource), .text(version.canaryAction), .integer(version.canarySource),
            ])
    }

    package func setHead(of key: TemplateKey, to number: Int64) throws {
        try database.execute(
            """
            INSERT INTO template_heads (project, namespace, active_version) VALUES (?, ?, ?)
            ON CONFLICT (project, namespace) DO UPDATE SET active_version = excluded.active_version
            """,
            [.text(key.project), .text(key.namespace), .integer(number)])
    }

    package func deleteVersions(of key: TemplateKey, through newest: Int64) throws {
        try database.execute(
            "DELETE FROM template_versions WHERE project = ? AND namespace = ? AND version_number <= ?",
            [.text(key.project), .text(key.namespace), .integer(newest)])
    }

    package func version(of key: TemplateKey, number: Int64) throws -> StoredVersion? {
        try database.queryFirst(
            """
            SELECT \(StoreColumns.version(includeTemplateJSON: true)) FROM template_versions v
            WHERE v.project = ? AND v.namespace = ? AND v.version_number = ?
            """,
            [.text(key.project), .text(key.namespace), .integer(number)]
        ) { try StoreColumns.decodeVersion($0, namespace: key.namespace, includeTemplateJSON: true) }
    }

    package func activeVersion(of key: TemplateKey) throws -> StoredVersion? {
        try database.queryFirst(
            """
            SELECT \(StoreColumns.version(includeTemplateJSON: true)) FROM template_heads h
            JOIN template_versions v ON v.project = h.project AND v.namespace = h.namespace
                AND v.version_number = h.active_version
            WHERE h.project = ? AND h.namespace = ?
            """,
            [.text(key.project), .text(key.namespace)]
        ) { try StoreColumns.decodeVersion($0, namespace: key.namespace, includeTemplateJSON: true) }
    }

    package func headState(of key: TemplateKey) throws -> (active: Int64?, canary: StoredCanary?) {
        try database.queryFirst(
            """
            SELECT h.active_version, \(StoreColumns.canary)
            FROM (SELECT ? AS project, ? AS namespace) k
            LEFT JOIN template_heads h ON h.project = k.project AND h.namespace = k.namespace
            LEFT JOIN template_canaries c ON c.project = k.project AND c.namespace = k.namespace
            """,
            [.text(key.project), .text(key.namespace)]
        ) { row in
            (row.optionalInt64(at: 0), row.isNull(at: 1) ? nil : StoreColumns.decodeCanary(row, from: 1, of: key))
        } ?? (nil, nil)
    }

    package func versions(of key: TemplateKey, _ selection: VersionSelection) throws -> [StoredVersion] {
        try database.query(
            """
            SELECT \(StoreColumns.version(includeTemplateJSON: selection.includeTemplateJSON)) FROM template_versions v
            WHERE v.project = ? AND v.namespace = ? AND v.version_number <= ?
                AND v.update_time >= ? AND v.update_time < ?
            ORDER BY v.version_number DESC LIMIT ?
            """,
            [.text(key.project), .text(key.namespace), .integer(selection.newest), .integer(selection.updatedFrom),
             .integer(selection.updatedBefore), .integer(selection.limit ?? -1)]  // SQLite: -1 is no limit
        ) { try StoreColumns.decodeVersion($0, namespace: key.namespace, includeTemplateJSON: selection.includeTemplateJSON) }
    }
}

/// The outbox's statements, as they are: SQLite numbers `?` itself.
extension SQLiteTemplateConnection: StoreStatements {
    package static var claimingClause: String { "" }

    package func run(_ sql: String, _ values: [StoreValue]) throws -> Int {
        try database.execute(sql, values.map(Self.sqliteValue))
    }

    package func rows<Result>(_ sql: String, _ values: [StoreValue], _ decode: (SQLiteStatement) throws -> Result) throws -> [Result] {
        try database.query(sql, values.map(Self.sqliteValue), row: decode)
    }

    private static func sqliteValue(_ value: StoreValue) -> SQLiteValue {
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .text(let text): .text(text)
        case .bytes(let bytes): .blob(bytes)
        }
    }
}

extension SQLiteStatement: StoreRow {
    package func bytes(at column: Int) -> [UInt8] { blob(at: column) }
}
