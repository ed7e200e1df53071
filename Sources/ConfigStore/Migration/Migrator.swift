import ConfigCore
public import Foundation

/// Brings a database schema up to date from `NNNN_name.sql` files.
///
/// Applied migrations are recorded in `schema_migrations`. Each pending migration runs together
/// with its bookkeeping row in one `BEGIN IMMEDIATE` transaction, so two processes starting at
/// once never apply a file twice and a failing file leaves no trace.
public struct Migrator: Sendable {
    /// The known migrations, in increasing version order.
    public let migrations: [Migration]

    /// The highest known migration version (0 when there are none).
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Uses `migrations` (any order); traps on duplicate versions.
    public init(migrations: [Migration]) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        precondition(
            zip(self.migrations, self.migrations.dropFirst()).allSatisfy { $0.version < $1.version },
            "duplicate migration versions")
    }

    /// Reads every `*.sql` file of `directory`.
    /// - Throws: `MigrationError` naming the directory or file at fault.
    public init(directory: URL) throws {
        let path = directory.path
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw MigrationError.unreadableDirectory(path: path, reason: error.localizedDescription)
        }
        var found: [Migration] = []
        var filesByVersion: [Int: [String]] = [:]
        for fileName in names.sorted() where fileName.hasSuffix(".sql") {
            let file = directory.appendingPathComponent(fileName)
            guard let (version, name) = Migration.parseFileName(fileName) else {
                throw MigrationError.invalidFileName(path: file.path)
            }
            let sql: String
            do {
                sql = try String(contentsOf: file, encoding: .utf8)
            } catch {
                throw MigrationError.unreadableFile(path: file.path, reason: error.localizedDescription)
            }
            filesByVersion[version, default: []].append(fileName)
            found.append(Migration(version: version, name: name, sql: sql))
        }
        if let (version, files) = filesByVersion.first(where: { $0.value.count > 1 }) {
            throw MigrationError.duplicateVersion(version, files: files)
        }
        guard !found.isEmpty else { throw MigrationError.noMigrations(path: path) }
        self.init(migrations: found)
    }

    /// Applies the migrations `database` has not seen yet, in order.
    /// - Returns: the versions applied by this call (empty when up to date).
    /// - Throws: `MigrationError.schemaTooNew` when the database has a migration newer than any
    ///   known one; `MigrationError.failed` when a file's SQL fails; `SQLiteError` otherwise.
    @discardableResult
    public func migrate(_ database: SQLiteDatabase) throws -> [Int] {
        try database.executeScript(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                applied_at INTEGER NOT NULL
            ) STRICT
            """)
        try checkNotTooNew(database)
        let applied = Set(try Self.appliedVersions(in: database))
        var appliedNow: [Int] = []
        for migration in migrations where !applied.contains(migration.version) {
            let didApply = try database.inTransaction(.immediate) {
                // Another process may have applied it since we looked.
                guard try !Self.isApplied(migration.version, in: database) else { return false }
                do {
                    try database.executeScript(migration.sql)
                } catch let error as SQLiteError {
                    throw MigrationError.failed(file: migration.fileName, error: error)
                }
                try database.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    [.integer(Int64(migration.version)), .text(migration.name),
                     .integer(Int64((SystemClock().now.timeIntervalSince1970 * 1000).rounded()))])
                return true
            }
            if didApply { appliedNow.append(migration.version) }
        }
        return appliedNow
    }

    /// Whether every known migration is applied and none is unknown.
    public func isUpToDate(_ database: SQLiteDatabase) throws -> Bool {
        try Set(Self.appliedVersions(in: database)) == Set(migrations.map(\.version))
    }

    /// The versions recorded in `schema_migrations`, ascending; empty for a new database.
    public static func appliedVersions(in database: SQLiteDatabase) throws -> [Int] {
        let tableExists = try database.queryFirst(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'"
        ) { _ in true } ?? false
        guard tableExists else { return [] }
        return try database.query("SELECT version FROM schema_migrations ORDER BY version") {
            Int($0.int64(at: 0))
        }
    }

    private func checkNotTooNew(_ database: SQLiteDatabase) throws {
        let newest = try Self.appliedVersions(in: database).last ?? 0
        if newest > latestVersion {
            throw MigrationError.schemaTooNew(applied: newest, known: latestVersion)
        }
    }

    private static func isApplied(_ version: Int, in database: SQLiteDatabase) throws -> Bool {
        try database.queryFirst("SELECT 1 FROM schema_migrations WHERE version = ?", [.integer(Int64(version))]) {
            _ in true
        } ?? false
    }
}
