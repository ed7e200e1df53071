@testable import ConfigStore
import Foundation
import TestSupport
import Testing

@Suite final class MigratorTests {
    private let temporary: TemporaryDirectory
    private var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory()
    }

    private func write(_ files: [String: String], to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, sql) in files {
            try sql.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
    }

    private func tables(_ database: SQLiteDatabase) throws -> [String] {
        try database.query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name") { $0.text(at: 0) }
    }

    @Test func appliesPendingMigrationsOnceInOrder() throws {
        let migrations = directory.appendingPathComponent("migrations")
        try write(
            ["0001_a.sql": "CREATE TABLE a (x INTEGER);", "0002_b.sql": "CREATE TABLE b (y INTEGER REFERENCES a);",
             "README.md": "not a migration"], to: migrations)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("db.sqlite").path)

        #expect(try Migrator(directory: migrations).migrate(database) == [1, 2])
        #expect(try Migrator(directory: migrations).migrate(database) == [])
        #expect(try tables(database) == ["a", "b", "schema_migrations"])

        try write(["0003_c.sql": "CREATE TABLE c (z INTEGER); INSERT INTO c VALUES (1);"], to: migrations)
        let migrator = try Migrator(directory: migrations)
        #expect(try migrator.migrate(database) == [3])
        #expect(try Migrator.appliedVersions(in: database) == [1, 2, 3])
        #expect(try migrator.isUpToDate(database))
        #expect(try database.query("SELECT name FROM schema_migrations ORDER BY version") { $0.text(at: 0) }
            == ["a", "b", "c"])
    }

    @Test func refusesADatabaseMigratedByANewerBuild() throws {
        let path = directory.appendingPathComponent("db.sqlite").path
        let newer = Migrator(migrations: [
            Migration(version: 1, name: "a", sql: "CREATE TABLE a (x);"),
            Migration(version: 2, name: "b", sql: "CREATE TABLE b (x);"),
        ])
        try newer.migrate(SQLiteDatabase(path: path))

        let older = Migrator(migrations: [Migration(version: 1, name: "a", sql: "CREATE TABLE a (x);")])
        #expect(throws: MigrationError.schemaTooNew(applied: 2, known: 1)) {
            try older.migrate(SQLiteDatabase(path: path))
        }
        #expect(MigrationError.schemaTooNew(applied: 2, known: 1).description.contains("upgrade"))
    }

    @Test func failingMigrationLeavesNoTraceAndNamesTheFile() throws {
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("db.sqlite").path)
        let migrator = Migrator(migrations: [
            Migration(version: 1, name: "good", sql: "CREATE TABLE a (x);"),
            Migration(version: 2, name: "bad", sql: "CREATE TABLE b (x); CREATE TABLE broken (;"),
        ])
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(database) }
        guard case .failed(let file, _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(file == "0002_bad.sql")
        #expect(try Migrator.appliedVersions(in: database) == [1])
        #expect(try tables(database) == ["a", "schema_migrations"])  // b was rolled back
    }

    @Test func rejectsBadDirectories() throws {
        let badName = directory.appendingPathComponent("bad-name")
        try write(["1_short.sql": "SELECT 1;"], to: badName)
        #expect(throws: MigrationError.invalidFileName(path: badName.appendingPathComponent("1_short.sql").path)) {
            try Migrator(directory: badName)
        }

        let duplicate = directory.appendingPathComponent("duplicate")
        try write(["0001_a.sql": "SELECT 1;", "0001_b.sql": "SELECT 2;"], to: duplicate)
        #expect(throws: MigrationError.duplicateVersion(1, files: ["0001_a.sql", "0001_b.sql"])) {
            try Migrator(directory: duplicate)
        }

        let empty = directory.appendingPathComponent("empty")
        try write([:], to: empty)
        #expect(throws: MigrationError.noMigrations(path: empty.path)) { try Migrator(directory: empty) }

        let missing = directory.appendingPathComponent("missing")
        let error = try #require(throws: MigrationError.self) { try Migrator(directory: missing) }
        #expect(error.description.contains(missing.path))
    }

    @Test func parsesFileNames() {
        #expect(Migration.parseFileName("0001_initial.sql")! == (1, "initial"))
        #expect(Migration.parseFileName("0042_add-index_2.sql")! == (42, "add-index_2"))
        #expect(Migration.parseFileName("0001_.sql") == nil)
        #expect(Migration.parseFileName("0000_zero.sql") == nil)
        #expect(Migration.parseFileName("abcd_x.sql") == nil)
        #expect(Migration.parseFileName("0001_x.sql.bak") == nil)
        #expect(Migration(version: 7, name: "x", sql: "").fileName == "0007_x.sql")
    }

    @Test func searchesTheDefaultDirectoryInOrder() {
        let root = URL(fileURLWithPath: "/repo", isDirectory: true)
        let executable = URL(fileURLWithPath: "/repo/.build/x86_64-unknown-linux-gnu/debug/server")
        func search(existing: Set<String>, environment: [String: String] = [:], cwd: String = "/elsewhere") -> String? {
            Migrator.searchMigrationsDirectory(
                environment: environment, currentDirectory: URL(fileURLWithPath: cwd, isDirectory: true),
                executable: executable, isDirectory: { existing.contains($0) })?.path
        }
        let all: Set = ["/elsewhere/migrations", "/repo/migrations", "/usr/share/remote-config-server/migrations"]
        #expect(search(existing: all, environment: ["RCS_MIGRATIONS_DIR": "/custom"]) == "/custom")
        #expect(search(existing: all, environment: ["RCS_MIGRATIONS_DIR": "rel/dir"]) == "/elsewhere/rel/dir")
        #expect(search(existing: all) == "/elsewhere/migrations")
        #expect(search(existing: ["/repo/migrations", "/usr/share/remote-config-server/migrations"]) == root.path + "/migrations")
        #expect(search(existing: ["/usr/share/remote-config-server/migrations"]) == "/usr/share/remote-config-server/migrations")
        #expect(search(existing: []) == nil)
    }

    @Test func defaultDirectoryFindsTheRepositoryMigrationsFromTheTestBinary() throws {
        // The test binary lives in <repo>/.build/<triple>/debug, three levels below the repository.
        let found = try #require(Migrator.defaultMigrationsDirectory(engine: "sqlite"))
        #expect(FileManager.default.fileExists(atPath: found.appendingPathComponent("0001_initial.sql").path))
        #expect(found.deletingLastPathComponent() == Migrator.defaultMigrationsDirectory())
    }
}
