public import ConfigCore
public import ConfigStore
public import Foundation

/// Staged publishes: a canary version served to a share of the instances, then promoted to
/// everyone or aborted. Each step is one transaction that first locks the template's head row,
/// like a publish.
extension PostgresTemplateStore {
    /// Stores `templateJSON` as the next version without making it active, and starts serving it
    /// to `microPercent` of the instances (bucketed on `seed`).
    /// - Throws: `versionMismatch`, `canaryRunning`, `invalidArgument` (share out of range, no
    ///   stable version yet), `projectNotFound`, `unavailable`.
    public func publishCanary(
        project: String, namespace: TemplateNamespace, templateJSON: [UInt8], expectedVersion: Int64?,
        microPercent: Int64, seed: String, promoteAt: Date?, metadata: PublishMetadata
    ) throws(StoreError) -> (version: StoredVersion, canary: StoredCanary) {
        try TemplateStoreRules.validate(microPercent: microPercent)
        return try write { connection in
            let head = try Self.lockHead(project: project, namespace: namespace, creatingIt: false, on: connection)
            if let expectedVersion, expectedVersion != head.number {
                throw StoreError.versionMismatch(current: head.number)
            }
            try Self.requireNoCanary(project: project, namespace: namespace, on: connection)
            guard head.number > 0 else { throw TemplateStoreRules.canaryNeedsStableVersion }
            let updateTime = self.nextUpdateTime(after: head.updateTime)
            let version = StoredVersion(
                project: project, namespace: namespace, versionNumber: head.number + 1,
                updateTime: TemplateStoreRules.date(milliseconds: updateTime), updateUser: metadata.updateUser,
                description: metadata.description, updateOrigin: metadata.updateOrigin, updateType: metadata.updateType,
                rollbackSource: nil, canaryAction: .canary, templateJSON: templateJSON)
            try Self.insert(version, on: connection)
            // The active (stable) version is one below the canary: never pruned here.
            try Self.prune(
                project: project, namespace: namespace,
                through: min(version.versionNumber - Int64(self.retention), head.number - 1), on: connection)
            let canary = StoredCanary(
                project: project, namespace: namespace, canaryVersion: version.versionNumber, microPercent: microPercent,
                seed: seed, startTime: version.updateTime, updateTime: version.updateTime, updateUser: metadata.updateUser,
                promoteAt: promoteAt)
            try connection.execute(
                """
                INSERT INTO template_canaries (project, namespace, canary_version, micro_percent, seed, started_at,
                    updated_at, update_user, promote_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                """,
                [.text(project), .text(namespace.rawValue), .integer(canary.canaryVersion), .integer(microPercent),
                 .text(seed), .integer(updateTime), .integer(updateTime), .text(metadata.updateUser),
                 .integer(promoteAt.map(TemplateStoreRules.milliseconds))])
            return ((version, canary), StoreChange(version))
        }
    }

    /// The active version's number and the running canary, read by one statement (one snapshot).
    public func headState(
        project: String, namespace: TemplateNamespace
    ) throws(StoreError) -> (active: Int64?, canary: StoredCanary?) {
        try read { connection in
            let row = try connection.queryFirst(
                """
                SELECT h.active_version, \(Self.canaryColumns)
                FROM (SELECT $1::text AS project, $2::text AS namespace) k
                LEFT JOIN template_heads h ON h.project = k.project AND h.namespace = k.namespace
                LEFT JOIN template_canaries c ON c.project = k.project AND c.namespace = k.namespace
                """,
                [.text(project), .text(namespace.rawValue)]
            ) { row in
                (row.optionalInt64(at: 0),
                 row.isNull(at: 1) ? nil : Self.decodeCanary(row, from: 1, project: project, namespace: namespace))
            }
            return row ?? (nil, nil)
        }
    }

    /// Grows the running canary's share; it never shrinks (an instance told of the canary must
    /// not be sent back).
    /// - Throws: `noCanary`, `canaryMismatch`, `invalidArgument`, `projectNotFound`, `unavailable`.
    public func setCanaryShare(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, microPercent: Int64,
        updateUser: String?
    ) throws(StoreError) -> StoredCanary {
        try TemplateStoreRules.validate(microPercent: microPercent)
        return try write { connection in
            _ = try Self.lockHead(project: project, namespace: namespace, creatingIt: false, on: connection)
            var canary = try Self.runningCanary(
                project: project, namespace: namespace, expected: expectedCanary, on: connection)
            try TemplateStoreRules.validateShareGrows(from: canary.microPercent, to: microPercent)
            canary.microPercent = microPercent
            canary.updateTime = TemplateStoreRules.date(
                milliseconds: self.nextUpdateTime(after: TemplateStoreRules.milliseconds(canary.updateTime)))
            canary.updateUser = updateUser
            try connection.execute(
                """
                UPDATE template_canaries SET micro_percent = $3, updated_at = $4, update_user = $5
                WHERE project = $1 AND namespace = $2
                """,
                [.text(project), .text(namespace.rawValue), .integer(microPercent),
                 .integer(TemplateStoreRules.milliseconds(canary.updateTime)), .text(updateUser)])
            let key = TemplateKey(project: project, namespace: namespace)
            return (canary, .template(key, version: canary.canaryVersion))
        }
    }

    /// Ends the canary with a new active version for everyone: a copy of the canary version
    /// (`canaryAction` promotion, `metadata.updateType`).
    /// - Throws: `noCanary`, `canaryMismatch`, `projectNotFound`, `unavailable`.
    public func promoteCanary(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try endCanary(project: project, namespace: namespace, expectedCanary: expectedCanary, promote: true, metadata: metadata)
    }

    /// Ends the canary with a new active version that copies the stable one back
    /// (`canaryAction` abort, `updateType` `ROLLBACK` to the stable version).
    /// - Throws: `noCanary`, `canaryMismatch`, `projectNotFound`, `unavailable`.
    public func abortCanary(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try endCanary(project: project, namespace: namespace, expectedCanary: expectedCanary, promote: false, metadata: metadata)
    }

    /// Appends the version that ends the running canary, and deletes the canary.
    private func endCanary(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, promote: Bool, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try write { connection in
            let stable = try Self.lockHead(project: project, namespace: namespace, creatingIt: false, on: connection).number
            let canary = try Self.runningCanary(
                project: project, namespace: namespace, expected: expectedCanary, on: connection)
            let source = promote ? canary.canaryVersion : stable
            guard let copied = try Self.version(
                project: project, namespace: namespace, number: source, includeTemplateJSON: true, on: connection)
            else { throw StoreError.versionNotFound(source) }
            try connection.execute(
                "DELETE FROM template_canaries WHERE project = $1 AND namespace = $2",
                [.text(project), .text(namespace.rawValue)])
            let description = promote
                ? TemplateStoreRules.promotionDescription(canary: canary.canaryVersion)
                : TemplateStoreRules.abortDescription(canary: canary.canaryVersion, stable: stable)
            let version = StoredVersion(
                project: project, namespace: namespace, versionNumber: canary.canaryVersion + 1,
                updateTime: TemplateStoreRules.date(
                    milliseconds: self.nextUpdateTime(after: TemplateStoreRules.milliseconds(canary.updateTime))),
                updateUser: metadata.updateUser, description: metadata.description ?? description,
                updateOrigin: metadata.updateOrigin, updateType: promote ? metadata.updateType : .rollback,
                rollbackSource: promote ? nil : stable, canaryAction: promote ? .promotion : .abort,
                canarySource: canary.canaryVersion, templateJSON: copied.templateJSON)
            try self.append(version, on: connection)
            return (version, StoreChange(version))
        }
    }

    // MARK: Rows

    static func requireNoCanary(project: String, namespace: TemplateNamespace, on connection: PostgresConnection) throws {
        if let canary = try canary(project: project, namespace: namespace, on: connection) {
            throw StoreError.canaryRunning(version: canary.canaryVersion)
        }
    }

    private static func runningCanary(
        project: String, namespace: TemplateNamespace, expected: Int64?, on connection: PostgresConnection
    ) throws -> StoredCanary {
        guard let canary = try canary(project: project, namespace: namespace, on: connection) else {
            try requireProject(project, on: connection)
            throw StoreError.noCanary
        }
        if let expected, expected != canary.canaryVersion { throw StoreError.canaryMismatch(current: canary.canaryVersion) }
        return canary
    }

    private static let canaryColumns =
        "c.canary_version, c.micro_percent, c.seed, c.started_at, c.updated_at, c.update_user, c.promote_at"

    private static func canary(
        project: String, namespace: TemplateNamespace, on connection: PostgresConnection
    ) throws -> StoredCanary? {
        try connection.queryFirst(
            "SELECT \(canaryColumns) FROM template_canaries c WHERE c.project = $1 AND c.namespace = $2",
            [.text(project), .text(namespace.rawValue)]
        ) { decodeCanary($0, from: 0, project: project, namespace: namespace) }
    }

    /// The canary whose `canaryColumns` start at column `first`.
    private static func decodeCanary(
        _ row: PostgresRow, from first: Int, project: String, namespace: TemplateNamespace
    ) -> StoredCanary {
        StoredCanary(
            project: project, namespace: namespace, canaryVersion: row.int64(at: first),
            microPercent: row.int64(at: first + 1), seed: row.text(at: first + 2),
            startTime: TemplateStoreRules.date(milliseconds: row.int64(at: first + 3)),
            updateTime: TemplateStoreRules.date(milliseconds: row.int64(at: first + 4)),
            updateUser: row.optionalText(at: first + 5),
            promoteAt: row.optionalInt64(at: first + 6).map(TemplateStoreRules.date(milliseconds:)))
    }
}
