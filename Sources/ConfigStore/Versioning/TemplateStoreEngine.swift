/// What `TemplateVersioning` needs of an engine: a way to run a read and a way to run a write
/// transaction on one of its connections. How that is scheduled stays the engine's own (SQLite:
/// one writer connection behind a mutex, `BEGIN IMMEDIATE`; PostgreSQL: a pool, a locked head
/// row, notifications); the rules above it are written once (GRDB splits its rules from
/// `SerializedDatabase` so).
package protocol TemplateStoreEngine: Sendable {
    associatedtype Connection: TemplateConnection

    /// Runs `body` on a connection, outside any write transaction.
    func readTemplates<Result: Sendable>(_ body: @Sendable (Connection) throws -> Result) throws(StoreError) -> Result

    /// Runs `body` in one write transaction and commits it; `change` is what the commit tells
    /// the other nodes, where the engine has any.
    func writeTemplates<Result: Sendable>(
        _ body: @Sendable (Connection) throws -> (result: Result, change: StoreChange)
    ) throws(StoreError) -> Result

    /// Runs `body` in one write transaction that changes nothing the workers keep in memory (the
    /// webhook outbox): no other node is told, and nobody waits for them.
    func writeUnannounced<Result: Sendable>(_ body: @Sendable (Connection) throws -> Result) throws(StoreError) -> Result
}

/// One step of a template operation on an engine's connection, in the read or the write
/// transaction the caller runs: each engine writes the SQL, the rules decide what to run and in
/// which order. Failures are the engine's own errors or `StoreError`s, which
/// `TemplateStoreEngine` maps into `StoreError`.
///
/// **Events.** `insertEvent(_:)` writes a webhook event to the outbox in the transaction the
/// caller runs: `TemplateVersioning` calls it for every publish, rollback and canary step, so
/// the event commits (or not) with the change it reports. Any other write transaction that
/// makes a change webhooks report (a change request's step, a scheduled publish) calls it the
/// same way on its own connection; a change made outside any such transaction uses
/// `TemplateStore.appendEvent(_:)`, which runs it in a transaction of its own.
package protocol TemplateConnection: StoreStatements {
    /// The active version of `key`, read for a write: holds whatever keeps the other writers of
    /// `key` waiting until this transaction ends.
    /// - Parameter creatingIt: the write may be the template's first version.
    /// - Throws: `StoreError.projectNotFound` for an unknown project.
    func lockHead(of key: TemplateKey, creatingIt: Bool) throws -> TemplateHead

    /// - Throws: `StoreError.projectNotFound` unless a project has this id.
    func requireProject(_ id: String) throws

    /// The running canary of `key`, if any.
    func canary(of key: TemplateKey) throws -> StoredCanary?

    func insertCanary(_ canary: StoredCanary) throws

    /// Records the canary's share, update time and update user.
    func updateCanary(_ canary: StoredCanary) throws

    func deleteCanary(of key: TemplateKey) throws

    /// Inserts `version` without making it active.
    func insert(_ version: StoredVersion) throws

    /// Makes version `number` the active one.
    func setHead(of key: TemplateKey, to number: Int64) throws

    /// Deletes the versions of `key` numbered `newest` and below.
    func deleteVersions(of key: TemplateKey, through newest: Int64) throws

    /// Version `number` with its template, or nil.
    func version(of key: TemplateKey, number: Int64) throws -> StoredVersion?

    /// The active version with its template, or nil before the first publish.
    func activeVersion(of key: TemplateKey) throws -> StoredVersion?

    /// The active version's number and the running canary, in one snapshot.
    func headState(of key: TemplateKey) throws -> (active: Int64?, canary: StoredCanary?)

    /// The versions of `key` that `selection` picks, newest first.
    func versions(of key: TemplateKey, _ selection: VersionSelection) throws -> [StoredVersion]

    /// Marks change request `completion.id` of `key` applied by `version`, if it is still at
    /// the revision read and in a status a publish may apply; whether it was.
    func completeChangeRequest(_ completion: ChangeRequestCompletion, of key: TemplateKey, version: Int64, time: Int64) throws
        -> Bool

    /// Writes `event` to the webhook outbox, with one pending delivery for each endpoint of its
    /// project that wants its type; writes nothing when none does (`WebhookOutbox.insert`).
    func insertEvent(_ event: WebhookEvent) throws
}

extension TemplateConnection {
    package func insertEvent(_ event: WebhookEvent) throws {
        try WebhookOutboxSQL.insert(event, on: self)
    }
}

/// The active version of a template, as a write that holds its head sees it.
package struct TemplateHead: Sendable, Equatable {
    /// 0 before the first publish.
    package var number: Int64
    /// The active version's `update_time` in milliseconds, nil before the first publish.
    package var updateTime: Int64?

    package init(number: Int64, updateTime: Int64?) {
        self.number = number
        self.updateTime = updateTime
    }

    /// No version yet.
    package static let none = TemplateHead(number: 0, updateTime: nil)
}

/// The rows one `listVersions` page reads: the versions numbered `newest` and below updated in
/// `updatedFrom ..< updatedBefore` (milliseconds), newest first, at most `limit` of them.
package struct VersionSelection: Sendable, Equatable {
    package var newest: Int64
    package var updatedFrom: Int64
    package var updatedBefore: Int64
    /// nil for all.
    package var limit: Int64?
    package var includeTemplateJSON: Bool
}
