import ConfigCore
package import ConfigStore

/// The SQL of each template step on PostgreSQL, inside a READ COMMITTED transaction. Writers of
/// one template are kept apart by the lock on its `template_heads` row (`lockHead`), on any
/// number of nodes.
package struct PostgresTemplateConnection: TemplateConnection {
    let connection: PostgresConnection

    /// Locks the head row until the transaction ends, so that every writer of the template, on
    /// any node, runs after the previous one committed and sees what it wrote.
    ///
    /// The version's time is read by a second statement on purpose: a `SELECT ... FOR UPDATE`
    /// that waited for another writer returns that writer's head row, but a join in the same
    /// statement would still see the versions of the snapshot taken before the wait.
    /// - Parameter creatingIt: insert the head row when there is none yet (a first publish);
    ///   the row points at version 0 until `setHead` moves it, and a second first publisher
    ///   waits on the inserted key until this transaction ends.
    package func lockHead(of key: TemplateKey, creatingIt: Bool) throws -> TemplateHead {
        let row: [PostgresValue] = [.text(key.project), .text(key.namespace.rawValue)]
        func lock() throws -> Int64? {
            try connection.queryFirst(
                "SELECT active_version FROM template_heads WHERE project = $1 AND namespace = $2 FOR UPDATE", row
            ) { $0.int64(at: 0) }
        }
        let found = try lock()
        if found == nil, creatingIt {
            do {
                try connection.execute(
                    "INSERT INTO template_heads (project, namespace, active_version) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING",
                    row)
            } catch {
                if error.code == .foreignKeyViolation { throw StoreError.projectNotFound(key.project) }
                throw error
            }
        }
        guard let active = try found ?? (creatingIt ? lock() : nil) else {
            try requireProject(key.project)
            return .none
        }
        guard active > 0 else { return .none }
        let updateTime = try connection.queryFirst(
            "SELECT update_time FROM template_versions WHERE project = $1 AND namespace = $2 AND version_number = $3",
            row + [.integer(active)]
        ) { $0.int64(at: 0) }
        return TemplateHead(number: active, updateTime: updateTime)
    }

    package func requireProject(_ id: String) throws {
        let exists = try connection.queryFirst("SELECT 1 FROM projects WHERE id = $1", [.text(id)]) { _ in true }
        guard exists != nil else { throw StoreError.projectNotFound(id) }
    }

    // MARK: Canaries

    package func canary(of key: TemplateKey) throws -> StoredCanary? {
        try connection.queryFirst(
            "SELECT \(StoreColumns.canary) FROM template_canaries c WHERE c.project = $1 AND c.namespace = $2",
            [.text(key.project), .text(key.namespace.rawValue)]
        ) { StoreColumns.decodeCanary($0, from: 0, of: key) }
    }

    package func insertCanary(_ canary: StoredCanary) throws {
        try connection.execute(
            """
            INSERT INTO template_canaries (project, namespace, canary_version, micro_percent, seed, started_at,
                updated_at, update_user, promote_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            """,
            [.text(canary.project), .text(canary.namespace.rawValue), .integer(canary.canaryVersion),
             .integer(canary.microPercent), .text(canary.seed), .integer(TemplateStoreRules.milliseconds(canary.startTime)),
             .integer(TemplateStoreRules.milliseconds(canary.updateTime)), .text(canary.updateUser),
             .integer(canary.promoteAt.map(TemplateStoreRules.milliseconds))])
    }

    package func updateCanary(_ canary: StoredCanary) throws {
        try connection.execute(
            """
            UPDATE template_canaries SET micro_percent = $3, updated_at = $4, update_user = $5
            WHERE project = $1 AND namespace = $2
            """,
            [.text(canary.project), .text(canary.namespace.rawValue), .integer(canary.microPercent),
             .integer(TemplateStoreRules.milliseconds(canary.updateTime)), .text(canary.updateUser)])
    }

    package func completeChangeRequest(
        _ completion: ChangeRequestCompletion, of key: TemplateKey, version: Int64, time: Int64
    ) throws -> Bool {
        try connection.execute(
            """
            UPDATE change_requests SET status = 'applied', applied_version = $1, schedule_time = NULL,
                revision = revision + 1, update_time = $2, record = coalesce($7, record)
            WHERE id = $3 AND project = $4 AND namespace = $5 AND revision = $6
                AND status IN (\(StoreColumns.applicableStatuses))
            """,
            [.integer(version), .integer(time), .integer(completion.id), .text(key.project), .text(key.namespace.rawValue),
             .integer(completion.expectedRevision), completion.record.map { .bytes($0) } ?? .null]
        ).affectedRows == 1
    }

    package func deleteCanary(of key: TemplateKey) throws {
        try connection.execute(
            "DELETE FROM template_canaries WHERE project = $1 AND namespace = $2",
            [.text(key.project), .text(key.namespace.rawValue)])
    }

    // MARK: Versions

    package func insert(_ version: StoredVersion) throws {
        try connection.execute(
            """
            INSERT INTO template_versions (project, namespace, version_number, template_json, update_time,
                update_user, description, update_origin, update_type, rollback_source, canary_action, canary_source)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
            """,
            [
                .text(version.project), .text(version.namespace.rawValue),
                .integer(version.versionNumber), .bytes(version.templateJSON),
                .integer(TemplateStoreRules.milliseconds(version.updateTime)), .text(version.updateUser),
                .text(version.description), .text(version.updateOrigin), .text(version.updateType.rawValue),
                .integer(version.rollbackSource), .text(version.canaryAction?.rawValue), .integer(version.canarySource),
            ])
    }

    /// The head row exists: `lockHead` inserted it for a first publish.
    package func setHead(of key: TemplateKey, to number: Int64) throws {
        try connection.execute(
            "UPDATE template_heads SET active_version = $3 WHERE project = $1 AND namespace = $2",
            [.text(key.project), .text(key.namespace.rawValue), .integer(number)])
    }

    package func deleteVersions(of key: TemplateKey, through newest: Int64) throws {
        try connection.execute(
            "DELETE FROM template_versions WHERE project = $1 AND namespace = $2 AND version_number <= $3",
            [.text(key.project), .text(key.namespace.rawValue), .integer(newest)])
    }

    package func version(of key: TemplateKey, number: Int64) throws -> StoredVersion? {
        try connection.queryFirst(
            """
            SELECT \(StoreColumns.version(includeTemplateJSON: true)) FROM template_versions v
            WHERE v.project = $1 AND v.namespace = $2 AND v.version_number = $3
            """,
            [.text(key.project), .text(key.namespace.rawValue), .integer(number)]
        ) { try StoreColumns.decodeVersion($0, namespace: key.namespace, includeTemplateJSON: true) }
    }

    package func activeVersion(of key: TemplateKey) throws -> StoredVersion? {
        try connection.queryFirst(
            """
            SELECT \(StoreColumns.version(includeTemplateJSON: true)) FROM template_heads h
            JOIN template_versions v ON v.project = h.project AND v.namespace = h.namespace
                AND v.version_number = h.active_version
            WHERE h.project = $1 AND h.namespace = $2
            """,
            [.text(key.project), .text(key.namespace.rawValue)]
        ) { try StoreColumns.decodeVersion($0, namespace: key.namespace, includeTemplateJSON: true) }
    }

    /// One statement, so one snapshot.
    package func headState(of key: TemplateKey) throws -> (active: Int64?, canary: StoredCanary?) {
        try connection.queryFirst(
            """
            SELECT h.active_version, \(StoreColumns.canary)
            FROM (SELECT $1::text AS project, $2::text AS namespace) k
            LEFT JOIN template_heads h ON h.project = k.project AND h.namespace = k.namespace
            LEFT JOIN template_canaries c ON c.project = k.project AND c.namespace = k.namespace
            """,
            [.text(key.project), .text(key.namespace.rawValue)]
        ) { row in
            (row.optionalInt64(at: 0), row.isNull(at: 1) ? nil : StoreColumns.decodeCanary(row, from: 1, of: key))
        } ?? (nil, nil)
    }

    package func versions(of key: TemplateKey, _ selection: VersionSelection) throws -> [StoredVersion] {
        try connection.query(
            """
            SELECT \(StoreColumns.version(includeTemplateJSON: selection.includeTemplateJSON)) FROM template_versions v
            WHERE v.project = $1 AND v.namespace = $2 AND v.version_number <= $3
                AND v.update_time >= $4 AND v.update_time < $5
            ORDER BY v.version_number DESC LIMIT $6
            """,
            [.text(key.project), .text(key.namespace.rawValue), .integer(selection.newest), .integer(selection.updatedFrom),
             .integer(selection.updatedBefore), .integer(selection.limit)]  // LIMIT NULL: all
        ) { try StoreColumns.decodeVersion($0, namespace: key.namespace, includeTemplateJSON: selection.includeTemplateJSON) }
    }
}

/// The outbox's statements with their `?` numbered as PostgreSQL wants (`$1`, `$2`, …; none
/// of them holds a `?` in a literal).
extension PostgresTemplateConnection: StoreStatements {
    package static var claimingClause: String { " FOR UPDATE SKIP LOCKED" }

    package func run(_ sql: String, _ values: [StoreValue]) throws -> Int {
        try connection.execute(Self.numbered(sql), values.map(Self.postgresValue)).affectedRows
    }

    package func rows<Result>(_ sql: String, _ values: [StoreValue], _ decode: (PostgresRow) throws -> Result) throws -> [Result] {
        try connection.query(Self.numbered(sql), values.map(Self.postgresValue), row: decode)
    }

    static func numbered(_ sql: String) -> String {
        var number = 0
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        for character in sql {
            if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    private static func postgresValue(_ value: StoreValue) -> PostgresValue {
        switch value {
        case .null: .null
        case .integer(let number): .integer(number)
        case .text(let text): .text(text)
        case .bytes(let bytes): .bytes(bytes)
        }
    }
}

extension PostgresRow: StoreRow {}
