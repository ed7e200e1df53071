package import ConfigCore
import Foundation

/// `TemplateStore`, written once for every engine: each write holds the template's head, checks
/// what the caller expected, appends the next version, moves the head and prunes, and is
/// announced with the newest version it names; listings page the same way everywhere. The
/// engine brings its connections (`DatabaseEngine`).
package struct TemplateVersioning<Engine: DatabaseEngine>: TemplateStore {
    let engine: Engine

    package init(engine: Engine) {
        self.engine = engine
    }

    /// Versions kept per template (at least 1).
    package var retention: Int { engine.retention }

    // MARK: Publishing

    /// See `TemplateStore.publish`.
    package func publish(
        project: String, namespace: TemplateNamespace, templateJSON: [UInt8], expectedVersion: Int64?,
        metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try TemplateStoreRules.validatePublish(updateType: metadata.updateType)
        let key = TemplateKey(project: project, namespace: namespace)
        return try engine.write(announcing: .template(key, version: \.versionNumber)) { connection in
            let head = try lockHeadForNewVersion(of: key, expecting: expectedVersion, creatingIt: true, on: connection)
            let version = StoredVersion(
                project: project, namespace: namespace, versionNumber: head.number + 1,
                updateTime: nextUpdateTime(after: head.updateTime), updateUser: metadata.updateUser,
                description: metadata.description, updateOrigin: metadata.updateOrigin, updateType: metadata.updateType,
                rollbackSource: nil, promotedFrom: metadata.promotedFrom, templateJSON: templateJSON)
            return try append(version, of: key, completing: metadata.completes, event: WebhookEvent(.templatePublish, version: version),
                              on: connection)
        }
    }

    /// See `TemplateStore.rollback`.
    package func rollback(
        project: String, namespace: TemplateNamespace, to target: Int64, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        let key = TemplateKey(project: project, namespace: namespace)
        return try engine.write(announcing: .template(key, version: \.versionNumber)) { connection in
            let head = try lockHeadForNewVersion(of: key, expecting: nil, creatingIt: false, on: connection)
            if target == head.number, target > 0 {
                throw StoreError.rollbackTargetNotOlder(target: target, current: head.number)
            }
            guard target < head.number, let source = try connection.version(of: key, number: target) else {
                throw StoreError.versionNotFound(target)
            }
            let version = StoredVersion(
                project: project, namespace: namespace, versionNumber: head.number + 1,
                updateTime: nextUpdateTime(after: head.updateTime), updateUser: metadata.updateUser,
                description: metadata.description ?? TemplateStoreRules.rollbackDescription(target: target),
                updateOrigin: metadata.updateOrigin, updateType: .rollback, rollbackSource: target,
                templateJSON: source.templateJSON)
            return try append(version, of: key, completing: metadata.completes, event: WebhookEvent(.templateRollback, version: version),
                              on: connection)
        }
    }

    // MARK: Reading

    /// See `TemplateStore.activeVersion`.
    package func activeVersion(project: String, namespace: TemplateNamespace) throws(StoreError) -> StoredVersion? {
        let key = TemplateKey(project: project, namespace: namespace)
        return try engine.read { connection in try connection.activeVersion(of: key) }
    }

    /// See `TemplateStore.version`.
    package func version(
        project: String, namespace: TemplateNamespace, number: Int64
    ) throws(StoreError) -> StoredVersion? {
        let key = TemplateKey(project: project, namespace: namespace)
        return try engine.read { connection in try connection.version(of: key, number: number) }
    }

    /// See `TemplateStore.headState`.
    package func headState(
        project: String, namespace: TemplateNamespace
    ) throws(StoreError) -> (active: Int64?, canary: StoredCanary?) {
        let key = TemplateKey(project: project, namespace: namespace)
        return try engine.read { connection in try connection.headState(of: key) }
    }

    /// See `TemplateStore.listVersions`: the page's rows plus one, which tells whether a next
    /// page exists; its token names that row.
    package func listVersions(
        project: String, namespace: TemplateNamespace, query: VersionQuery
    ) throws(StoreError) -> (versions: [StoredVersion], nextPageToken: String?) {
        try TemplateStoreRules.validateListing(pageSize: query.pageSize, endVersionNumber: query.endVersionNumber)
        let tokenNewest = try TemplateStoreRules.decodePageToken(query.pageToken)
        let selection = VersionSelection(
            newest: min(query.endVersionNumber ?? .max, tokenNewest ?? .max),
            updatedFrom: query.startTime.map(TemplateStoreRules.milliseconds) ?? .min,
            updatedBefore: query.endTime.map(TemplateStoreRules.milliseconds) ?? .max,
            limit: query.pageSize.map { Int64($0) + 1 }, includeTemplateJSON: query.includeTemplateJSON)
        let key = TemplateKey(project: project, namespace: namespace)
        var versions = try engine.read { connection in try connection.versions(of: key, selection) }
        guard let pageSize = query.pageSize, versions.count > pageSize else { return (versions, nil) }
        let next = versions.removeLast()
        return (versions, TemplateStoreRules.encodePageToken(next.versionNumber))
    }

    /// See `TemplateStore.heads`.
    package func heads() throws(StoreError) -> [TemplateKey: Int64] {
        try engine.read { connection in try connection.heads() }
    }

    // MARK: Steps

    /// Holds the head of `key` for a write that appends a version: checks the version the
    /// caller expected (nil: any) and that no canary runs.
    func lockHeadForNewVersion(
        of key: TemplateKey, expecting expected: Int64?, creatingIt: Bool, on connection: Engine.Connection
    ) throws -> TemplateHead {
        let head = try connection.lockHead(of: key, creatingIt: creatingIt)
        if let expected, expected != head.number {
            throw StoreError.versionMismatch(current: head.number)
        }
        if let canary = try connection.canary(of: key) {
            throw StoreError.canaryRunning(version: canary.canaryVersion)
        }
        return head
    }

    /// Inserts `version`, makes it active, prunes what retention no longer keeps and writes
    /// `event` (which reports it) to the webhook outbox.
    func append(
        _ version: StoredVersion, of key: TemplateKey, completing completion: ChangeRequestCompletion? = nil,
        event: WebhookEvent, on connection: Engine.Connection
    ) throws -> StoredVersion {
        try complete(completion, of: key, version: version, on: connection)
        try connection.insertEvent(event)
        try connection.insert(version)
        try connection.setHead(of: key, to: version.versionNumber)
        // Numbers are gap-free, so keeping the newest `retention` numbers keeps exactly that many,
        // and the new (active) version is always among them.
        try connection.deleteVersions(of: key, through: version.versionNumber - Int64(retention))
        return version
    }

    /// Marks the change request `version` applies (if any) applied, in the write's transaction.
    /// - Throws: `versionMismatch` when the template moved past the request's base;
    ///   `changeRequestMoved` when the request changed since it was read.
    func complete(
        _ completion: ChangeRequestCompletion?, of key: TemplateKey, version: StoredVersion, on connection: Engine.Connection
    ) throws {
        guard let completion else { return }
        if let base = completion.baseVersion, base != version.versionNumber - 1 {
            throw StoreError.versionMismatch(current: version.versionNumber - 1)
        }
        let time = TemplateStoreRules.milliseconds(version.updateTime)
        guard try connection.completeChangeRequest(completion, of: key, version: version.versionNumber, time: time) else {
            throw StoreError.changeRequestMoved(completion.id)
        }
        for type in completion.events {
            try connection.insertEvent(WebhookEvent(
                type: type, project: key.project, namespace: key.namespace.rawValue, time: version.updateTime,
                update: WebhookEvent.Update(version), diffFrom: version.versionNumber - 1, data: completion.eventData))
        }
    }

    /// `updateTime` for a version written now: never before `previous` (milliseconds).
    func nextUpdateTime(after previous: Int64?) -> Date {
        TemplateStoreRules.date(milliseconds: TemplateStoreRules.nextUpdateTime(now: engine.clock(), after: previous))
    }
}
