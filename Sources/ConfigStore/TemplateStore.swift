public import ConfigCore
public import Foundation

/// Versioned storage of templates per (project, namespace), with the projects and API key
/// hashes that own them. `SQLiteTemplateStore` (one file, the embedded default) and
/// `PostgresTemplateStore` (several nodes on one database) implement it.
///
/// The contract every implementation keeps, and that the contract tests check:
/// - **Blocking.** Every method is synchronous and may wait on disk or network: never call it
///   on an event-loop thread. Implementations are safe to call from several threads at once.
/// - **Gap-free versions.** Per (project, namespace), version numbers start at 1 and grow by
///   exactly one per publish, rollback or canary step, even when several processes or nodes
///   publish at once; of two writers expecting the same version, exactly one wins and the
///   other gets `StoreError.versionMismatch`.
/// - **Durable before return.** A write returns only after its commit would survive a crash
///   of the process (and, for a database server, is visible to every other connection).
/// - **The active version is never pruned.** Retention keeps the newest `retention` versions
///   and, whatever the count, the active one and a running canary's.
/// - **Opaque page tokens.** `listVersions` tokens mean something to the store that issued
///   them only; anything else is `StoreError.invalidPageToken`.
/// - **One error type.** Failures are `StoreError`s. An engine that is busy, unreachable or
///   failing maps into `StoreError.unavailable`, which callers treat as "try again later";
///   a write that throws it may or may not have committed (read the head to know).
public protocol TemplateStore: AnyObject, Sendable {
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

    /// The active version's number and the running canary, in one read (what a worker compares
    /// with what it serves).
    func headState(
        project: String, namespace: TemplateNamespace
    ) throws(StoreError) -> (active: Int64?, canary: StoredCanary?)

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

    // MARK: Versions

    /// The active version with its template, or nil before the first publish.
    func activeVersion(project: String, namespace: TemplateNamespace) throws(StoreError) -> StoredVersion?

    /// One version with its template, or nil when it was never published or was pruned.
    func version(project: String, namespace: TemplateNamespace, number: Int64) throws(StoreError) -> StoredVersion?

    /// Versions newest first, filtered and paged (see `VersionQuery`).
    /// - Throws: `invalidArgument` naming the parameter, `invalidPageToken`.
    func listVersions(
        project: String, namespace: TemplateNamespace, query: VersionQuery
    ) throws(StoreError) -> (versions: [StoredVersion], nextPageToken: String?)

    // MARK: Projects and API keys

    /// Creates or renames a project.
    /// - Throws: `projectNumberTaken`, `invalidArgument` for an id or number `ProjectIdentity`
    ///   refuses.
    func upsertProject(_ project: StoredProject) throws(StoreError)

    /// Every project, by id.
    func projects() throws(StoreError) -> [StoredProject]

    /// Records an API key hash for `project` (re-adding renames it).
    /// - Throws: `projectNotFound`.
    func addAPIKey(project: String, keyHash: String, name: String) throws(StoreError)

    /// Forgets an API key hash; whether it was there.
    func removeAPIKey(project: String, keyHash: String) throws(StoreError) -> Bool

    /// The API keys (hashes and names) of `project`, oldest first.
    func apiKeys(project: String) throws(StoreError) -> [StoredAPIKey]

    // MARK: Access records

    /// Writes a principal, membership or token record (replacing the one with the same kind and
    /// id). Announced like a project change: every worker and node reads the records again.
    /// - Throws: `invalidArgument` for an id that is empty or longer than 512 bytes.
    func putAccessRecord(_ kind: StoredAccessRecord.Kind, id: String, record: [UInt8]) throws(StoreError)

    /// Replaces a record that exists, and only then (a session kept alive must not come back
    /// after its deletion); whether it existed.
    func updateAccessRecord(_ kind: StoredAccessRecord.Kind, id: String, record: [UInt8]) throws(StoreError) -> Bool

    /// Deletes a record; whether it was there.
    func deleteAccessRecord(_ kind: StoredAccessRecord.Kind, id: String) throws(StoreError) -> Bool

    /// Every access record, by kind and id.
    func accessRecords() throws(StoreError) -> [StoredAccessRecord]

    // MARK: Change control

    /// Writes a template's approval policy. Announced like a project change: every worker and
    /// node reads the policies again.
    func putChangePolicy(_ policy: StoredChangePolicy) throws(StoreError)

    /// Every template's approval policy.
    func changePolicies() throws(StoreError) -> [StoredChangePolicy]

    /// Keeps a new change request; returns it with its id, revision 1 and times.
    /// - Parameter events: the webhook events it makes, written in the same transaction (given
    ///   the request with its id).
    func insertChangeRequest(
        _ request: StoredChangeRequest, events: @Sendable (StoredChangeRequest) -> [WebhookEvent]
    ) throws(StoreError) -> StoredChangeRequest

    /// One change request, or nil.
    func changeRequest(id: Int64) throws(StoreError) -> StoredChangeRequest?

    /// A template's change requests, newest first, at most `limit`, optionally of one status.
    func changeRequests(project: String, namespace: TemplateNamespace, status: String?, limit: Int) throws(StoreError)
        -> [StoredChangeRequest]

    /// Writes `request`'s status, schedule time and record if it is still at `expectedRevision`;
    /// returns it at its next revision, nil when another write came first (nothing written).
    /// `events` are written with it, in the same transaction, only if it is written.
    func updateChangeRequest(_ request: StoredChangeRequest, expectedRevision: Int64, events: [WebhookEvent]) throws(StoreError)
        -> StoredChangeRequest?

    /// The `scheduled` requests whose time is `now` or before, oldest time first.
    func dueChangeRequests(now: Date) throws(StoreError) -> [StoredChangeRequest]

    // MARK: Sign-in attempts

    /// Keeps a sign-in under way (its state's hash as key) until `expireTime`, and removes the
    /// expired ones. No worker keeps attempts in memory: only the one the provider sends the
    /// person back to reads it.
    /// - Returns: false, keeping nothing, when `maxPending` unexpired attempts are kept already
    ///   (anyone may start one: the table stays bounded).
    func putSignInAttempt(stateHash: String, record: [UInt8], expireTime: Date, maxPending: Int) throws(StoreError) -> Bool

    /// Takes the attempt of `stateHash`: deletes and returns it, nil for an unknown, used or
    /// expired one. Of two takers of one state, on any workers or nodes, only one gets it.
    func takeSignInAttempt(stateHash: String) throws(StoreError) -> [UInt8]?

    // MARK: Audit log

    /// Appends an entry (its `id` is ignored); returns the id given. Nothing edits or deletes an
    /// entry but `pruneAudit`.
    @discardableResult
    func appendAudit(_ entry: AuditEntry) throws(StoreError) -> Int64

    /// Entries newest first, filtered and paged.
    /// - Throws: `invalidArgument` for a page size out of 1...1000, `invalidPageToken`.
    func auditEntries(_ query: AuditQuery) throws(StoreError) -> (entries: [AuditEntry], nextPageToken: String?)

    /// Removes the entries older than `cutoff` (retention); how many.
    @discardableResult
    func pruneAudit(before cutoff: Date) throws(StoreError) -> Int

    // MARK: Webhooks

    /// The webhook endpoints and the outbox of their events, on this store's database.
    var webhooks: any WebhookStore { get }

    // MARK: Changes

    /// The active version of every template that has one.
    func heads() throws(StoreError) -> [TemplateKey: Int64]

    /// A value that changes whenever anything was committed, by any process or node. Compare
    /// it with the last one read to know whether to read `heads()` and the projects again; it
    /// means nothing else.
    func changeToken() throws(StoreError) -> StoreChangeToken

    /// A connection told of every commit, for stores that several nodes share; nil when the
    /// change token and the workers' own announcements suffice (one machine).
    /// - Parameter name: names the connection on the server (e.g. the node), for operators.
    func makeChangeListener(name: String) -> (any StoreChangeListener)?

    /// Releases the connections. Later calls throw `StoreError.unavailable`. Idempotent.
    func close()
}

/// An opaque value of `TemplateStore.changeToken()`: only equality means something.
public struct StoreChangeToken: Hashable, Sendable {
    let value: Int64

    /// Wraps an implementation's counter.
    public init(_ value: Int64) { self.value = value }
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

    /// `insertChangeRequest` with no webhook event.
    public func insertChangeRequest(_ request: StoredChangeRequest) throws(StoreError) -> StoredChangeRequest {
        try insertChangeRequest(request) { _ in [] }
    }

    /// `updateChangeRequest` with no webhook event.
    public func updateChangeRequest(_ request: StoredChangeRequest, expectedRevision: Int64) throws(StoreError)
        -> StoredChangeRequest? {
        try updateChangeRequest(request, expectedRevision: expectedRevision, events: [])
    }

    /// Writes a webhook event in a transaction of its own (`WebhookStore.appendEvent`): for a
    /// change made outside a template write. Inside a write transaction of the store, use
    /// `TemplateConnection.insertEvent` so that the event commits with the change.
    public func appendEvent(_ event: WebhookEvent) throws(StoreError) {
        try webhooks.appendEvent(event)
    }

    /// No listener: one machine's store.
    public func makeChangeListener(name: String) -> (any StoreChangeListener)? { nil }

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
