public import ConfigCore
public import Foundation

/// Versioned storage of templates per (project, namespace): `ConfigDatabase.templates`. Every
/// write is announced (`StoreChange.template`).
///
/// Beyond the contract of `ConfigDatabase`:
/// - **Gap-free versions.** Per (project, namespace), version numbers start at 1 and grow by
///   exactly one per publish, rollback or canary step, even when several processes or nodes
///   publish at once; of two writers expecting the same version, exactly one wins and the
///   other gets `StoreError.versionMismatch`.
/// - **The active version is never pruned.** Retention keeps the newest `retention` versions
///   and, whatever the count, the active one and a running canary's.
/// - **Opaque page tokens.** `listVersions` tokens mean something to the store that issued
///   them only; anything else is `StoreError.invalidPageToken`.
public protocol TemplateStore: Sendable {
    /// How many versions are kept per (project, namespace).
    var retention: Int { get }

    // MARK: Publishing

    /// Appends a version and makes it active.
    /// - Parameters:
    ///   - expectedVersion: the version the publisher saw (0 before the first publish), or nil
    ///     to publish whatever is active (`If-Match: *`).
    ///   - metadata: `updateType` must be `incrementalUpdate` or `forcedUpdate`.
    /// - Throws: `versionMismatch`, `canaryRunning`, `projectNotFound`, `invalidArgument`.
    func publish(
        project: String, namespace: TemplateNamespace, templateJSON: [UInt8], expectedVersion: Int64?,
        metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion

    /// Appends a version that copies version `target`'s template (`updateType` `ROLLBACK`).
    /// - Throws: `versionNotFound`, `rollbackTargetNotOlder`, `canaryRunning`.
    func rollback(
        project: String, namespace: TemplateNamespace, to target: Int64, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion

    // MARK: Canaries

    /// Appends a version served to `microPercent` (of 10^8) of the instances while the active
    /// version stays what everyone else gets.
    /// - Throws: as `publish`; `invalidArgument` for a share out of range or a first publish.
    func publishCanary(
        project: String, namespace: TemplateNamespace, templateJSON: [UInt8], expectedVersion: Int64?,
        microPercent: Int64, seed: String, promoteAt: Date?, metadata: PublishMetadata
    ) throws(StoreError) -> (version: StoredVersion, canary: StoredCanary)

    /// Grows the running canary's share (it never shrinks).
    /// - Parameter completes: the change request this step applies, marked applied in the same
    ///   transaction (see `PublishMetadata.completes`).
    /// - Throws: `noCanary`, `canaryMismatch`, `invalidArgument`, `changeRequestMoved`.
    func setCanaryShare(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, microPercent: Int64,
        updateUser: String?, completes: ChangeRequestCompletion?
    ) throws(StoreError) -> StoredCanary

    /// Ends the canary with a version that copies it for everyone (`canaryAction` promotion).
    func promoteCanary(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion

    /// Ends the canary with a version that copies the stable one back (`canaryAction` abort).
    func abortCanary(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion

    // MARK: Reading

    /// The active version's number and the running canary, in one read (what a worker compares
    /// with what it serves).
    func headState(
        project: String, namespace: TemplateNamespace
    ) throws(StoreError) -> (active: Int64?, canary: StoredCanary?)

    /// The active version with its template, or nil before the first publish.
    func activeVersion(project: String, namespace: TemplateNamespace) throws(StoreError) -> StoredVersion?

    /// One version with its template, or nil when it was never published or was pruned.
    func version(project: String, namespace: TemplateNamespace, number: Int64) throws(StoreError) -> StoredVersion?

    /// Versions newest first, filtered and paged (see `VersionQuery`).
    /// - Throws: `invalidArgument` naming the parameter, `invalidPageToken`.
    func listVersions(
        project: String, namespace: TemplateNamespace, query: VersionQuery
    ) throws(StoreError) -> (versions: [StoredVersion], nextPageToken: String?)

    /// The active version of every template that has one.
    func heads() throws(StoreError) -> [TemplateKey: Int64]
}

/// The filters and page of `TemplateStore.listVersions`.
public struct VersionQuery: Sendable, Equatable {
    /// At most this many (≥ 1), or nil for all.
    public var pageSize: Int?
    /// `nextPageToken` of the previous page; nil or empty for the first.
    public var pageToken: String?
    /// The newest version to include (≥ 1).
    public var endVersionNumber: Int64?
    /// Omit versions updated before this (inclusive bound).
    public var startTime: Date?
    /// Omit versions updated at or after this (exclusive bound).
    public var endTime: Date?
    /// Whether to load each version's template bytes.
    public var includeTemplateJSON: Bool

    /// - Parameters: see the properties.
    public init(
        pageSize: Int? = nil, pageToken: String? = nil, endVersionNumber: Int64? = nil, startTime: Date? = nil,
        endTime: Date? = nil, includeTemplateJSON: Bool = false
    ) {
        self.pageSize = pageSize
        self.pageToken = pageToken
        self.endVersionNumber = endVersionNumber
        self.startTime = startTime
        self.endTime = endTime
        self.includeTemplateJSON = includeTemplateJSON
    }
}

extension TemplateStore {
    /// `setCanaryShare` applying no change request.
    public func setCanaryShare(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, microPercent: Int64, updateUser: String?
    ) throws(StoreError) -> StoredCanary {
        try setCanaryShare(project: project, namespace: namespace, expectedCanary: expectedCanary, microPercent: microPercent,
                           updateUser: updateUser, completes: nil)
    }

    /// `listVersions(project:namespace:query:)` with the query's fields as arguments.
    public func listVersions(
        project: String, namespace: TemplateNamespace, pageSize: Int? = nil, pageToken: String? = nil,
        endVersionNumber: Int64? = nil, startTime: Date? = nil, endTime: Date? = nil, includeTemplateJSON: Bool = false
    ) throws(StoreError) -> (versions: [StoredVersion], nextPageToken: String?) {
        try listVersions(
            project: project, namespace: namespace,
            query: VersionQuery(pageSize: pageSize, pageToken: pageToken, endVersionNumber: endVersionNumber,
                                startTime: startTime, endTime: endTime, includeTemplateJSON: includeTemplateJSON))
    }
}
