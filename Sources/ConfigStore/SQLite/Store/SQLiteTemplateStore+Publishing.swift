public import ConfigCore
extension SQLiteTemplateStore {
    /// Stores `templateJSON` as the next version and makes it active.
    ///
    /// Runs in one `BEGIN IMMEDIATE` transaction: check `expectedVersion`, insert version
    /// head + 1 (1 for the first), move the head, prune versions beyond `retention`, commit.
    /// Returns only after the commit is durable.
    /// - Parameters:
    ///   - project: the project ID.
    ///   - namespace: `firebase` or `firebase-server`.
    ///   - templateJSON: the template bytes, stored as given.
    ///   - expectedVersion: the version the caller's edit is based on (0 = none yet), or nil to
    ///     skip the check (`If-Match: *`).
    ///   - metadata: user, description, origin and `INCREMENTAL_UPDATE` / `FORCED_UPDATE`.
    /// - Throws: `StoreError.versionMismatch(current:)`, `StoreError.canaryRunning` while a
    ///   canary runs, `StoreError.projectNotFound`, `StoreError.invalidArgument`,
    ///   `StoreError.unavailable` (e.g. busy after the busy timeout).
    @discardableResult
    public func publish(
        project: String, namespace: TemplateNamespace, templateJSON: [UInt8], expectedVersion: Int64?,
        metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        guard [UpdateType.incrementalUpdate, UpdateType.forcedUpdate].contains(metadata.updateType)
        else {
            throw StoreError.invalidArgument(
                "updateType must be INCREMENTAL_UPDATE or FORCED_UPDATE, got '\(metadata.updateType)'")
        }
        return try write { database in
            let head = try head(project: project, namespace: namespace, in: database)
            if let expectedVersion, expectedVersion != head.number {
                throw StoreError.versionMismatch(current: head.number)
            }
            try Self.requireNoCanary(project: project, namespace: namespace, in: database)
            return try append(
                StoredVersion(
                    project: project, namespace: namespace, versionNumber: head.number + 1,
                    updateTime: Self.date(milliseconds: nextUpdateTime(after: head.updateTime)),
                    updateUser: metadata.updateUser, description: metadata.description,
                    updateOrigin: metadata.updateOrigin, updateType: metadata.updateType,
                    rollbackSource: nil, templateJSON: templateJSON),
                to: database)
        }
    }

    /// Publishes a copy of version `to` as a new version with `updateType` `ROLLBACK` and
    /// `rollbackSource` = `to`. `metadata.updateType` is ignored; a nil description becomes
    /// "Rollback to version N".
    /// - Throws: `StoreError.versionNotFound` for a version never published or pruned,
    ///   `StoreError.rollbackTargetNotOlder` for the active version, `StoreError.canaryRunning`,
    ///   `StoreError.projectNotFound`.
    @discardableResult
    public func rollback(
        project: String, namespace: TemplateNamespace, to target: Int64, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        return try write { database in
            let head = try head(project: project, namespace: namespace, in: database)
            try Self.requireNoCanary(project: project, namespace: namespace, in: database)
            if target == head.number, target > 0 {
                throw StoreError.rollbackTargetNotOlder(target: target, current: head.number)
            }
            guard target < head.number,
                let source = try Self.version(
                    project: project, namespace: namespace, number: target, includeTemplateJSON: true, in: database)
            else { throw StoreError.versionNotFound(target) }
            return try append(
                StoredVersion(
                    project: project, namespace: namespace, versionNumber: head.number + 1,
                    updateTime: Self.date(milliseconds: nextUpdateTime(after: head.updateTime)),
                    updateUser: metadata.updateUser,
                    description: metadata.description ?? "Rollback to version \(target)",
                    updateOrigin: metadata.updateOrigin, updateType: UpdateType.rollback,
                    rollbackSource: target, templateJSON: source.templateJSON),
                to: database)
        }
    }

    /// The active version number (0 if none) and its time, read inside the write transaction.
    func head(
        project: String, namespace: TemplateNamespace, in database: SQLiteDatabase
    ) throws -> (number: Int64, updateTime: Int64?) {
        let row = try database.queryFirst(
            """
            SELECT v.version_number, v.update_time FROM template_heads h
            JOIN template_versions v ON v.project = h.project AND v.namespace = h.namespace
                AND v.version_number = h.active_version
            WHERE h.project = ? AND h.namespace = ?
            """,
            [.text(project), .text(namespace)]
        ) { (number: $0.int64(at: 0), updateTime: Optional($0.int64(at: 1))) }
        if let row { return row }
        try Self.requireProject(project, in: database)
        return (0, nil)
    }

    /// Inserts `version`, makes it active and prunes what retention no longer keeps.
    func append(_ version: StoredVersion, to database: SQLiteDatabase) throws -> StoredVersion {
        try insert(version, into: database)
        try database.execute(
            """
            INSERT INTO template_heads (project, namespace, active_version) VALUES (?, ?, ?)
            ON CONFLICT (project, namespace) DO UPDATE SET active_version = excluded.active_version
            """,
            [.text(version.project), .text(version.namespace), .integer(version.versionNumber)])
        // Numbers are gap-free, so keeping the newest `retention` numbers keeps exactly that many,
        // and the new (active) version is always among them.
        try prune(project: version.project, namespace: version.namespace,
                  through: version.versionNumber - Int64(retention), in: database)
        return version
    }

    /// Inserts `version` without making it active.
    func insert(_ version: StoredVersion, into database: SQLiteDatabase) throws {
        try database.execute(
            """
            INSERT INTO template_versions (project, namespace, version_number, template_json, update_time,
                update_user, description, update_origin, update_type, rollback_source, canary_action, canary_source)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(version.project), .text(version.namespace),
                .integer(version.versionNumber), .blob(version.templateJSON),
                .integer(Self.milliseconds(version.updateTime)), .text(version.updateUser), .text(version.description),
                .text(version.updateOrigin), .text(version.updateType), .integer(version.rollbackSource),
                .text(version.canaryAction), .integer(version.canarySource),
            ])
    }

    /// Deletes the versions numbered `newest` and below.
    func prune(project: String, namespace: TemplateNamespace, through newest: Int64, in database: SQLiteDatabase) throws {
        try database.execute(
            "DELETE FROM template_versions WHERE project = ? AND namespace = ? AND version_number <= ?",
            [.text(project), .text(namespace), .integer(newest)])
    }
}
