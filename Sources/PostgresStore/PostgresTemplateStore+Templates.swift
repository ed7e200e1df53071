public import ConfigCore
public import ConfigStore
public import Foundation

/// Templates, versions and canaries: `TemplateVersioning` over this store's connections.
extension PostgresTemplateStore: TemplateStoreEngine {
    /// Runs `body` on a pool connection outside any transaction (one statement is one snapshot).
    package func readTemplates<Result: Sendable>(
        _ body: @Sendable (PostgresTemplateConnection) throws -> Result
    ) throws(StoreError) -> Result {
        try read { connection in try body(PostgresTemplateConnection(connection: connection)) }
    }

    /// Runs `body` in a transaction that also notifies its change, and waits for the nodes (`write`).
    package func writeTemplates<Result: Sendable>(
        _ body: @Sendable (PostgresTemplateConnection) throws -> (result: Result, change: StoreChange)
    ) throws(StoreError) -> Result {
        try write { connection in try body(PostgresTemplateConnection(connection: connection)) }
    }

    /// Runs `body` in a transaction that bumps no revision and notifies nobody (`read` and
    /// `inTransaction`): webhook bookkeeping, which no worker keeps in memory.
    package func writeUnannounced<Result: Sendable>(
        _ body: @Sendable (PostgresTemplateConnection) throws -> Result
    ) throws(StoreError) -> Result {
        try read { connection in try connection.inTransaction { try body(PostgresTemplateConnection(connection: connection)) } }
    }

    public var webhooks: any WebhookStore { WebhookOutbox(engine: self, clock: clock) }

    private var versioning: TemplateVersioning<PostgresTemplateStore> {
        TemplateVersioning(engine: self, retention: retention, clock: clock)
    }

    public func publish(
        project: String, namespace: TemplateNamespace, templateJSON: [UInt8], expectedVersion: Int64?,
        metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try versioning.publish(
            project: project, namespace: namespace, templateJSON: templateJSON, expectedVersion: expectedVersion,
            metadata: metadata)
    }

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
