public import ConfigCore
public import Foundation

/// Templates, versions and canaries: `TemplateVersioning` over this store's connections.
extension SQLiteTemplateStore: TemplateStoreEngine {
    /// Runs `body` on the reader connection.
    package func readTemplates<Result: Sendable>(
        _ body: @Sendable (SQLiteTemplateConnection) throws -> Result
    ) throws(StoreError) -> Result {
        try read { database in try body(SQLiteTemplateConnection(database: database)) }
    }

    /// Runs `body` in an IMMEDIATE transaction on the writer connection. The change is not sent:
    /// on one machine, workers poll the change token and announce their own writes.
    package func writeTemplates<Result: Sendable>(
        _ body: @Sendable (SQLiteTemplateConnection) throws -> (result: Result, change: StoreChange)
    ) throws(StoreError) -> Result {
        try write { database in try body(SQLiteTemplateConnection(database: database)).result }
    }

    /// Runs `body` in an IMMEDIATE transaction on the writer connection.
    package func writeUnannounced<Result: Sendable>(
        _ body: @Sendable (SQLiteTemplateConnection) throws -> Result
    ) throws(StoreError) -> Result {
        try write { database in try body(SQLiteTemplateConnection(database: database)) }
    }

    public var webhooks: any WebhookStore { WebhookOutbox(engine: self, clock: clock) }

    private var versioning: TemplateVersioning<SQLiteTemplateStore> {
        TemplateVersioning(engine: self, retention: retention, clock: clock)
    }

    @discardableResult
    public func publish(
        project: String, namespace: TemplateNamespace, templateJSON: [UInt8], expectedVersion: Int64?,
        metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try versioning.publish(
            project: project, namespace: namespace, templateJSON: templateJSON, expectedVersion: expectedVersion,
            metadata: metadata)
    }

    @discardableResult
    public func rollback(
        project: String, namespace: TemplateNamespace, to target: Int64, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try versioning.rollback(project: project, namespace: namespace, to: target, metadata: metadata)
    }

    public func publishCanary(
        project: String, namespace: TemplateNamespace, templateJSON: [UInt8], expectedVersion: Int64?,
        microPercent: Int64, seed: String, promoteAt: Date?, metadata: PublishMetadata
    ) throws(StoreError) -> (version: StoredVersion, canary: StoredCanary) {
        try versioning.publishCanary(
            project: project, namespace: namespace, templateJSON: templateJSON, expectedVersion: expectedVersion,
            microPercent: microPercent, seed: seed, promoteAt: promoteAt, metadata: metadata)
    }

    public func setCanaryShare(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, microPercent: Int64,
        updateUser: String?, completes: ChangeRequestCompletion?
    ) throws(StoreError) -> StoredCanary {
        try versioning.setCanaryShare(
            project: project, namespace: namespace, expectedCanary: expectedCanary, microPercent: microPercent,
            updateUser: updateUser, completes: completes)
    }

    public func promoteCanary(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try versioning.promoteCanary(project: project, namespace: namespace, expectedCanary: expectedCanary, metadata: metadata)
    }

    public func abortCanary(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try versioning.abortCanary(project: project, namespace: namespace, expectedCanary: expectedCanary, metadata: metadata)
    }

    public func headState(
        project: String, namespace: TemplateNamespace
    ) throws(StoreError) -> (active: Int64?, canary: StoredCanary?) {
        try versioning.headState(project: project, namespace: namespace)
    }

    public func activeVersion(project: String, namespace: TemplateNamespace) throws(StoreError) -> StoredVersion? {
        try versioning.activeVersion(project: project, namespace: namespace)
    }

    public func version(project: String, namespace: TemplateNamespace, number: Int64) throws(StoreError) -> StoredVersion? {
        try versioning.version(project: project, namespace: namespace, number: number)
    }

    public func listVersions(
        project: String, namespace: TemplateNamespace, query: VersionQuery
    ) throws(StoreError) -> (versions: [StoredVersion], nextPageToken: String?) {
        try versioning.listVersions(project: project, namespace: namespace, query: query)
    }
}
