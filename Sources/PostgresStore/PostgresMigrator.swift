public import ConfigStore
import ConfigCore
import Foundation

/// Brings a PostgreSQL schema up to date from the same `NNNN_name.sql` files `Migrator` reads
/// (its parsing and its list of migrations are reused; only applying them differs).
///
/// Nodes starting together must not apply a file twice. The run holds a session-level
/// `pg_advisory_lock` on a connection of its own from before it first looks at
/// `schema_migrations` until it is done, and applies each pending file together with its
/// bookkeeping row in one transaction. A session lock (not a transaction lock) also covers
/// statements that cannot run in a transaction, and it dies with the connection if the
/// process does, so a crashed node never leaves the lock behind.
public struct PostgresMigrator: Sendable {
    /// The key of the advisory lock. Advisory locks are per database, so one constant serves
    /// every database on a server.
    public static let advisoryLockKey: Int64 = 0x5243_535F_4D49_4752  // "RCS_MIGR"

    /// The migrations and their order.
    public let migrator: Migrator

    /// - Parameter migrator: the known migrations (e.g. `Migrator(directory:)` on
    ///   `migrations/postgres`).
    public init(_ migrator: Migrator) {
        self.migrator = migrator
    }

    /// Applies the migrations the database has not seen yet, in order, on `connection`
    /// (which should be dedicated to the run: the lock is held by its session).
    /// - Returns: the versions applied by this call (empty when up to date).
    /// - Throws: `MigrationError.schemaTooNew` when the database has a migration newer than any
    ///   known one; `PostgresMigrationError.failed` when a file's SQL fails; `PostgresError`
    ///   otherwise.
    @discardableResult
    public func migrate(_ connection: PostgresConnection) throws -> [Int] {
        try connection.execute("SELECT pg_advisory_lock($1)", [.integer(Self.advisoryLockKey)])
        defer { _ = try? connection.execute("SELECT pg_advisory_unlock($1)", [.integer(Self.advisoryLockKey)]) }
        // "already exists, skipping" on every start is no news for the operator's log.
        try connection.execute("SET client_min_messages = warning")
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version    bigint PRIMARY KEY,
                name       text NOT NULL,
                applied_at bigint NOT NULL
            )
            """)
        let applied = try Self.appliedVersions(on: connection)
        if let newest = applied.last, newest > migrator.latestVersion {
            throw MigrationError.schemaTooNew(applied: newest, known: migrator.latestVersion)
        }
        var appliedNow: [Int] = []
        for migration in migrator.migrations where !applied.contains(migration.version) {
            try connection.inTransaction {
                do {
                    try connection.executeScript(migration.sql)
                } catch let error as PostgresError {
                    throw PostgresMigrationError.failed(file: migration.fileName, error: error)
                }
                try connection.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                    [.integer(Int64(migration.version)), .text(migration.name),
                     .integer(Int64((SystemClock().now.timeIntervalSince1970 * 1000).rounded()))])
            }
            appliedNow.append(migration.version)
        }
        return appliedNow
    }

    /// Whether every known migration is applied and none is unknown; false when the database
    /// has no `schema_migrations` table.
    public func isUpToDate(_ connection: PostgresConnection) throws -> Bool {
        try Set(Self.appliedVersions(on: connection)) == Set(migrator.migrations.map(\.version))
    }

    /// The versions recorded in `schema_migrations`, ascending; empty for a new database.
    public static func appliedVersions(on connection: PostgresConnection) throws -> [Int] {
        let exists = try connection.queryFirst("SELECT to_regclass('schema_migrations') IS NOT NULL") { $0.bool(at: 0) }
        guard exists == true else { return [] }
        return try connection.query("SELECT version FROM schema_migrations ORDER BY version") { Int($0.int64(at: 0)) }
    }
}

/// A migration file's SQL failed on PostgreSQL; nothing of it was applied.
public enum PostgresMigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    case failed(file: String, error: PostgresError)

    public var description: String {
        switch self {
        case .failed(let file, let error): "migration \(file) failed: \(error)"
        }
    }
}
