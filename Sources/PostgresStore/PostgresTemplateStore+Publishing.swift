public import ConfigCore
public import ConfigStore

extension PostgresTemplateStore {
    /// Stores `templateJSON` as the next version and makes it active, in one transaction:
    /// lock the head, check `expectedVersion` and that no canary runs, insert version head + 1
    /// (1 for the first), move the head, prune beyond `retention`, notify, commit.
    /// - Throws: `versionMismatch`, `canaryRunning`, `projectNotFound`, `invalidArgument`,
    ///   `unavailable`.
    public func publish(
        project: String, namespace: TemplateNamespace, templateJSON: [UInt8], expectedVersion: Int64?,
        metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try TemplateStoreRules.validatePublish(updateType: metadata.updateType)
        return try write { connection in
            let head = try Self.lockHead(project: project, namespace: namespace, creatingIt: true, on: connection)
            if let expectedVersion, expectedVersion != head.number {
                throw StoreError.versionMismatch(current: head.number)
            }
            try Self.requireNoCanary(project: project, namespace: namespace, on: connection)
            let version = StoredVersion(
                project: project, namespace: namespace, versionNumber: head.number + 1,
                updateTime: TemplateStoreRules.date(milliseconds: self.nextUpdateTime(after: head.updateTime)),
                updateUser: metadata.updateUser, description: metadata.description,
                updateOrigin: metadata.updateOrigin, updateType: metadata.updateType,
                rollbackSource: nil, templateJSON: templateJSON)
            try self.append(version, on: connection)
            return (version, StoreChange(version))
        }
    }

    /// Publishes a copy of version `target` as a new version (`ROLLBACK`, `rollbackSource`
    /// `target`); a nil description becomes "Rollback to version N".
    /// - Throws: `versionNotFound`, `rollbackTargetNotOlder`, `canaryRunning`, `projectNotFound`,
    ///   `unavailable`.
    public func rollback(
        project: String, namespace: TemplateNamespace, to target: Int64, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try write { connection in
            let head = try Self.lockHead(project: project, namespace: namespace, creatingIt: false, on: connection)
            try Self.requireNoCanary(project: project, namespace: namespace, on: connection)
            if target == head.number, target > 0 {
                throw StoreError.rollbackTargetNotOlder(target: target, current: head.number)
            }
            guard target < head.number,
                let source = try Self.version(
                    project: project, namespace: namespace, number: target, includeTemplateJSON: true, on: connection)
            else { throw StoreError.versionNotFound(target) }
            let version = StoredVersion(
                project: project, namespace: namespace, versionNumber: head.number + 1,
                updateTime: TemplateStoreRules.date(milliseconds: self.nextUpdateTime(after: head.updateTime)),
                updateUser: metadata.updateUser,
                description: metadata.description ?? TemplateStoreRules.rollbackDescription(target: target),
                updateOrigin: metadata.updateOrigin, updateType: .rollback,
                rollbackSource: target, templateJSON: source.templateJSON)
            try self.append(version, on: connection)
            return (version, StoreChange(version))
        }
    }

    // MARK: Rows

    /// The active version of a template whose head row this transaction has locked.
    struct LockedHead {
        /// 0 before the first publish.
        var number: Int64
        /// The active version's `update_time`, nil before the first publish.
        var updateTime: Int64?
    }

    /// Locks the head row of (project, namespace) until the transaction ends and reads the
    /// active version. Every write to a template starts here, which serializes them across nodes.
    ///
    /// The version's time is read by a second statement on purpose: a `SELECT ... FOR UPDATE`
    /// that waited for another writer returns that writer's head row, but a join in the same
    /// statement would still see the versions of the snapshot taken before the wait.
    /// - Parameter creatingIt: insert the head row when there is none yet (a first publish);
    ///   the row points at version 0 until `append` moves it, and a second first publisher
    ///   waits on the inserted key until this transaction ends.
    /// - Throws: `StoreError.projectNotFound` for an unknown project.
    static func lockHead(
        project: String, namespace: TemplateNamespace, creatingIt: Bool, on connection: PostgresConnection
    ) throws -> LockedHead {
        let key: [PostgresValue] = [.text(project), .text(namespace.rawValue)]
        func lock() throws -> Int64? {
            try connection.queryFirst(
                "SELECT active_version FROM template_heads WHERE project = $1 AND namespace = $2 FOR UPDATE", key
            ) { $0.int64(at: 0) }
        }
        let found = try lock()
        if found == nil, creatingIt {
            do {
                try connection.execute(
                    "INSERT INTO template_heads (project, namespace, active_version) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING",
                    key)
            } catch {
                if error.code == .foreignKeyViolation { throw StoreError.projectNotFound(project) }
                throw error
            }
        }
        guard let active = try found ?? (creatingIt ? lock() : nil) else {
            try requireProject(project, on: connection)
            return LockedHead(number: 0, updateTime: nil)
        }
        guard active > 0 else { return LockedHead(number: 0, updateTime: nil) }
        let updateTime = try connection.queryFirst(
            "SELECT update_time FROM template_versions WHERE project = $1 AND namespace = $2 AND version_number = $3",
            key + [.integer(active)]
        ) { $0.int64(at: 0) }
        return LockedHead(number: active, updateTime: updateTime)
    }

    /// Inserts `version`, makes it active and prunes what retention no longer keeps.
    func append(_ version: StoredVersion, on connection: PostgresConnection) throws {
        try Self.insert(version, on: connection)
        try connection.execute(
            "UPDATE template_heads SET active_version = $3 WHERE project = $1 AND namespace = $2",
            [.text(version.project), .text(version.namespace.rawValue), .integer(version.versionNumber)])
        // Numbers are gap-free, so keeping the newest `retention` numbers keeps exactly that many,
        // and the new (active) version is always among them.
        try Self.prune(
            project: version.project, namespace: version.namespace,
            through: version.versionNumber - Int64(retention), on: connection)
    }

    /// Inserts `version` without making it active.
    static func insert(_ version: StoredVersion, on connection: PostgresConnection) throws {
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

    /// Deletes the versions numbered `newest` and below.
    static func prune(
        project: String, namespace: TemplateNamespace, through newest: Int64, on connection: PostgresConnection
    ) throws {
        try connection.execute(
            "DELETE FROM template_versions WHERE project = $1 AND namespace = $2 AND version_number <= $3",
            [.text(project), .text(namespace.rawValue), .integer(newest)])
    }
}
