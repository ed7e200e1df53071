public import ConfigCore
public import Foundation

/// Staged publishes: a canary version served to a share of the instances, then promoted to
/// everyone or aborted. Each step runs in one IMMEDIATE transaction, like a publish.
extension SQLiteTemplateStore {
    /// Stores `templateJSON` as the next version without making it active, and starts serving
    /// it to `microPercent` of the instances (bucketed on `seed`).
    /// - Parameters:
    ///   - expectedVersion: the active version the edit is based on, or nil (`If-Match: *`).
    ///   - microPercent: the share, 1 ... 100_000_000.
    ///   - promoteAt: when to promote it by itself, if ever.
    ///   - metadata: as for `publish`; the version records `canary_action` `CANARY`.
    /// - Throws: `StoreError.versionMismatch`, `StoreError.canaryRunning`,
    ///   `StoreError.invalidArgument`, `StoreError.projectNotFound`, `StoreError.unavailable`.
    public func publishCanary(
        project: String, namespace: TemplateNamespace, templateJSON: [UInt8], expectedVersion: Int64?,
        microPercent: Int64, seed: String, promoteAt: Date?, metadata: PublishMetadata
    ) throws(StoreError) -> (version: StoredVersion, canary: StoredCanary) {
        try TemplateStoreRules.validate(microPercent: microPercent)
        return try write { database in
            let head = try head(project: project, namespace: namespace, in: database)
            if let expectedVersion, expectedVersion != head.number {
                throw StoreError.versionMismatch(current: head.number)
            }
            try Self.requireNoCanary(project: project, namespace: namespace, in: database)
            guard head.number > 0 else {
                throw StoreError.invalidArgument("a canary needs a stable version to compare with: publish a first version normally")
            }
            let updateTime = nextUpdateTime(after: head.updateTime)
            let version = StoredVersion(
                project: project, namespace: namespace, versionNumber: head.number + 1,
                updateTime: Self.date(milliseconds: updateTime), updateUser: metadata.updateUser,
                description: metadata.description, updateOrigin: metadata.updateOrigin, updateType: metadata.updateType,
                rollbackSource: nil, canaryAction: CanaryAction.canary, templateJSON: templateJSON)
            try insert(version, into: database)
            // The active (stable) version is one below the canary: never pruned here.
            try prune(project: project, namespace: namespace,
                      through: min(version.versionNumber - Int64(retention), head.number - 1), in: database)
            let canary = StoredCanary(
                project: project, namespace: namespace, canaryVersion: version.versionNumber, microPercent: microPercent,
                seed: seed, startTime: version.updateTime, updateTime: version.updateTime, updateUser: metadata.updateUser,
                promoteAt: promoteAt)
            try database.execute(
                """
                INSERT INTO template_canaries (project, namespace, canary_version, micro_percent, seed, started_at,
                    updated_at, update_user, promote_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.text(project), .text(namespace), .integer(canary.canaryVersion), .integer(microPercent), .text(seed),
                 .integer(updateTime), .integer(updateTime), .text(metadata.updateUser),
                 .integer(promoteAt.map(Self.milliseconds))])
            return (version, canary)
        }
    }

    /// The active version's number and the running canary: what a worker compares with what
    /// it serves (one cheap query).
    public func headState(project: String, namespace: TemplateNamespace) throws(StoreError) -> (active: Int64?, canary: StoredCanary?) {
        try read { database in
            let active = try database.queryFirst(
                "SELECT active_version FROM template_heads WHERE project = ? AND namespace = ?",
                [.text(project), .text(namespace)]
            ) { $0.int64(at: 0) }
            return (active, try Self.canary(project: project, namespace: namespace, in: database))
        }
    }

    /// Changes the share of the running canary. It can only grow: an instance told of the
    /// canary must not be sent back.
    /// - Parameter expectedCanary: the canary version the caller saw, or nil to skip the check.
    /// - Throws: `StoreError.noCanary`, `StoreError.canaryMismatch`, `StoreError.invalidArgument`
    ///   for a smaller share.
    public func setCanaryShare(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, microPercent: Int64, updateUser: String?
    ) throws(StoreError) -> StoredCanary {
        try TemplateStoreRules.validate(microPercent: microPercent)
        return try write { database in
            var canary = try Self.runningCanary(project: project, namespace: namespace, expected: expectedCanary, in: database)
            guard microPercent >= canary.microPercent else {
                throw StoreError.invalidArgument(
                    "the share can only grow (it is \(Double(canary.microPercent) / 1_000_000) %): an instance told of the canary stays in it; abort the canary instead")
            }
            canary.microPercent = microPercent
            canary.updateTime = Self.date(milliseconds: nextUpdateTime(after: Self.milliseconds(canary.updateTime)))
            canary.updateUser = updateUser
            try database.execute(
                "UPDATE template_canaries SET micro_percent = ?, updated_at = ?, update_user = ? WHERE project = ? AND namespace = ?",
                [.integer(microPercent), .integer(Self.milliseconds(canary.updateTime)), .text(updateUser),
                 .text(project), .text(namespace)])
            return canary
        }
    }

    /// Ends the canary with a new active version for everyone: a copy of the canary version
    /// (`canary_action` `PROMOTION`, `metadata.updateType`).
    /// - Throws: `StoreError.noCanary`, `StoreError.canaryMismatch`.
    public func promoteCanary(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try endCanary(project: project, namespace: namespace, expectedCanary: expectedCanary, promote: true, metadata: metadata)
    }

    /// Ends the canary with a new active version that copies the stable one back
    /// (`canary_action` `ABORT`, `updateType` `ROLLBACK` to the stable version).
    /// - Throws: `StoreError.noCanary`, `StoreError.canaryMismatch`.
    public func abortCanary(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try endCanary(project: project, namespace: namespace, expectedCanary: expectedCanary, promote: false, metadata: metadata)
    }

    /// Appends the version that ends the running canary, and deletes the canary.
    private func endCanary(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, promote: Bool, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        return try write { database in
            let canary = try Self.runningCanary(project: project, namespace: namespace, expected: expectedCanary, in: database)
            let stable = try head(project: project, namespace: namespace, in: database).number
            let source = promote ? canary.canaryVersion : stable
            guard let copied = try Self.version(
                project: project, namespace: namespace, number: source, includeTemplateJSON: true, in: database)
            else { throw StoreError.versionNotFound(source) }
            try database.execute(
                "DELETE FROM template_canaries WHERE project = ? AND namespace = ?", [.text(project), .text(namespace)])
            let description = promote
                ? "Promote canary version \(canary.canaryVersion) to every instance"
                : "Abort canary version \(canary.canaryVersion): back to version \(stable)"
            return try append(
                StoredVersion(
                    project: project, namespace: namespace, versionNumber: canary.canaryVersion + 1,
                    updateTime: Self.date(milliseconds: nextUpdateTime(after: Self.milliseconds(canary.updateTime))),
                    updateUser: metadata.updateUser, description: metadata.description ?? description,
                    updateOrigin: metadata.updateOrigin, updateType: promote ? metadata.updateType : UpdateType.rollback,
                    rollbackSource: promote ? nil : stable, canaryAction: promote ? CanaryAction.promotion : CanaryAction.abort,
                    canarySource: canary.canaryVersion, templateJSON: copied.templateJSON),
                to: database)
        }
    }

    // MARK: Rows

    static func requireNoCanary(project: String, namespace: TemplateNamespace, in database: SQLiteDatabase) throws {
        if let canary = try canary(project: project, namespace: namespace, in: database) {
            throw StoreError.canaryRunning(version: canary.canaryVersion)
        }
    }

    private static func runningCanary(
        project: String, namespace: TemplateNamespace, expected: Int64?, in database: SQLiteDatabase
    ) throws -> StoredCanary {
        guard let canary = try canary(project: project, namespace: namespace, in: database) else {
            try requireProject(project, in: database)
            throw StoreError.noCanary
        }
        if let expected, expected != canary.canaryVersion { throw StoreError.canaryMismatch(current: canary.canaryVersion) }
        return canary
    }

    private static func canary(project: String, namespace: TemplateNamespace, in database: SQLiteDatabase) throws -> StoredCanary? {
        try database.queryFirst(
            """
            SELECT canary_version, micro_percent, seed, started_at, updated_at, update_user, promote_at
            FROM template_canaries WHERE project = ? AND namespace = ?
            """,
            [.text(project), .text(namespace)]
        ) { row in
            StoredCanary(
                project: project, namespace: namespace, canaryVersion: row.int64(at: 0), microPercent: row.int64(at: 1),
                seed: row.text(at: 2), startTime: date(milliseconds: row.int64(at: 3)),
                updateTime: date(milliseconds: row.int64(at: 4)), updateUser: row.optionalText(at: 5),
                promoteAt: row.optionalInt64(at: 6).map(date(milliseconds:)))
        }
    }
}
