package import Foundation

/// An engine of `ConfigDatabase`: its connections and transactions, and the few places where
/// its SQL differs (`StoreConnection`). Every capability is written once above it, in SQL both
/// engines read (`DatabaseEngine+Stores`); how the work is scheduled stays the engine's own
/// (SQLite: one writer connection behind a mutex, `BEGIN IMMEDIATE`; PostgreSQL: a pool, locked
/// rows, notifications). GRDB splits its records from `SerializedDatabase` so.
package protocol DatabaseEngine: ConfigDatabase {
    associatedtype Connection: StoreConnection

    /// How many versions are kept per template (at least 1).
    var retention: Int { get }
    /// The source of every time the stores write.
    var clock: @Sendable () -> Date { get }

    /// Runs `body` on a connection, outside any write transaction.
    func read<Result: Sendable>(_ body: @Sendable (Connection) throws -> Result) throws(StoreError) -> Result

    /// Runs `body` in one write transaction and commits it, as `announcement` says: an announced
    /// commit moves the change token and, where nodes share the database, is told to each of
    /// them, and the write returns once they applied it; an unannounced one does neither.
    /// - Parameter lock: held from the transaction's start (with its first statement, where the
    ///   engine can) to its end: every other write holding it, on any node, waits meanwhile.
    @discardableResult
    func write<Result: Sendable>(
        announcing announcement: Announcement<Result>, holding lock: WriteLock?, _ body: @Sendable (Connection) throws -> Result
    ) throws(StoreError) -> Result
}

extension DatabaseEngine {
    /// A write that holds no ``WriteLock`` (`write(announcing:holding:_:)`).
    @discardableResult
    package func write<Result: Sendable>(
        announcing announcement: Announcement<Result>, _ body: @Sendable (Connection) throws -> Result
    ) throws(StoreError) -> Result {
        try write(announcing: announcement, holding: nil, body)
    }
}

/// Whom a write tells when it commits: the workers and nodes that keep what it changed in
/// memory, or nobody (docs/consistency.md).
package enum Announcement<Result>: Sendable {
    /// Nothing any worker keeps in memory: no revision, no notification, no wait.
    case none
    /// Projects or client API keys.
    case projects
    /// Principals, memberships, tokens or change policies, or an ended session.
    case access
    /// A template's head or canary; `version` picks, from the write's result, the newest version
    /// the change names.
    case template(TemplateKey, version: @Sendable (Result) -> Int64)

    /// What the commit of a write that returned `result` tells; nil for `none`.
    package func change(for result: Result) -> StoreChange? {
        switch self {
        case .none: nil
        case .projects: .projects
        case .access: .access
        case .template(let key, let version): .template(key, version: version(result))
        }
    }

    /// Whether the commit moves the change token.
    package var isAnnounced: Bool {
        if case .none = self { false } else { true }
    }
}

/// A connection of an engine, in the read or write transaction its caller runs: statements with
/// `?` parameters (`StoreStatements`) and the places where the dialects differ. Failures are
/// the engine's own errors or `StoreError`s, which the engine maps into `StoreError`.
package protocol StoreConnection: StoreStatements {
    /// What ends a `SELECT` of rows to claim when other transactions may claim at the same time:
    /// PostgreSQL locks the rows it picks and skips those another transaction locked; SQLite's
    /// single writer needs nothing.
    static var claimingClause: String { get }

    /// A `COLLATE` clause that orders text by its bytes, whatever the database's collation.
    static var bytewiseCollation: String { get }

    /// The active version of `key` as its head row says, read for a write: holds whatever keeps
    /// the other writers of `key` waiting until this transaction ends; nil when there is no
    /// head row.
    /// - Parameter creatingIt: the write may be the template's first version. An engine whose
    ///   lock is the row's may insert one pointing at version 0, which `setHead` moves before
    ///   the commit.
    /// - Throws: `StoreError.projectNotFound` for an unknown project, where the engine finds out.
    func lockHeadRow(of key: TemplateKey, creatingIt: Bool) throws -> Int64?
}

/// Writes that run one at a time across nodes beyond a template's own (whose head row keeps its
/// writers apart). The values name PostgreSQL's transaction-level advisory locks; SQLite's one
/// writer already runs every write alone.
package enum WriteLock: Int64, Sendable {
    /// Project upserts, so that the number check sees any project another node just committed.
    case projects = 0x5243_535F_5052_4F4A  // "RCS_PROJ"
    /// Audit appends, so that ids are taken and committed in the order the times are.
    case audit = 0x5243_535F_4155_4454  // "RCS_AUDT"
}
