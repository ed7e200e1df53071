import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import TestSupport
import Testing

/// What only the SQLite database does: its file and directory, its migrations table, and other
/// connections on the same file. The rest is the store contract (`StoreContract`).
@Suite final class SQLiteConfigDatabaseTests {
    private let temporary: TemporaryDirectory
    private var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory()
    }

    @Test func createsItsDirectoryAndMigratesOnce() throws {
        let path = directory.appendingPathComponent("nested/dir/store.sqlite").path
        let store = try SQLiteConfigDatabase(databasePath: path, migrationsDirectory: SQLiteFixture.migrations)
        #expect(try store.projects.all() == [])
        store.close()

        let reopened = try SQLiteConfigDatabase(databasePath: path, migrationsDirectory: SQLiteFixture.migrations)
        #expect(try reopened.projects.all() == [])
        let database = try SQLiteDatabase(path: path)
        let migrator = try Migrator(directory: SQLiteFixture.migrations)
        #expect(try migrator.isUpToDate(database))
        let known = migrator.latestVersion
        #expect(try Migrator.appliedVersions(in: database) == Array(1...known))
        #expect(try database.queryFirst("SELECT count(*) FROM schema_migrations") { $0.int64(at: 0) } == Int64(known))
    }

    @Test func refusesASchemaNewerThanItsMigrations() throws {
        let path = directory.appendingPathComponent("store.sqlite").path
        _ = try SQLiteConfigDatabase(databasePath: path, migrationsDirectory: SQLiteFixture.migrations)
        try SQLiteDatabase(path: path).execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)")
        let known = try Migrator(directory: SQLiteFixture.migrations).latestVersion
        #expect(throws: MigrationError.schemaTooNew(applied: 9999, known: known)) {
            try SQLiteConfigDatabase(databasePath: path, migrationsDirectory: SQLiteFixture.migrations)
        }
    }

    @Test func interruptedTransactionLeavesNoHalfWrittenVersion() throws {
        let fixture = try SQLiteFixture()
        let store = try fixture.make()
        try store.publishTag(1)

        // Another connection writes version 2 and moves the head, then goes away uncommitted.
        let crashing = try SQLiteDatabase(path: fixture.path)
        try crashing.execute("BEGIN IMMEDIATE")
        try crashing.execute(
            """
            INSERT INTO template_versions (project, namespace, version_number, template_json, update_time,
                update_origin, update_type) VALUES ('p1', 'firebase', 2, X'00', 0, 'REST_API', 'INCREMENTAL_UPDATE')
            """)
        try crashing.execute("UPDATE template_heads SET active_version = 2")
        #expect(try store.templates.activeVersion(project: "p1", namespace: .client)?.versionNumber == 1)
        crashing.close()

        #expect(try store.templates.version(project: "p1", namespace: .client, number: 2) == nil)
        #expect(try store.templates.heads() == [TemplateKey(project: "p1", namespace: .client): 1])
        let next = try store.publishTag(2)
        #expect(next.versionNumber == 2)
        #expect(try store.templates.version(project: "p1", namespace: .client, number: 2)?.templateText == #"{"n":2}"#)
    }
}

extension SQLiteConfigDatabaseTests {
    /// The change token's row comes with a migration that only adds a table: a process still on
    /// the code before it keeps writing while a newer one migrates the file under it, and its
    /// writes (which never bump the row) do not move the newer one's token.
    @Test func aProcessOnTheMigrationsBeforeTheRevisionKeepsWriting() throws {
        let path = directory.appendingPathComponent("store.sqlite").path
        let all = try Migrator(directory: SQLiteFixture.migrations)
        let older = try SQLiteDatabase(path: path)
        try Migrator(migrations: all.migrations.filter { $0.version < 10 }).migrate(older)

        let database = try SQLiteConfigDatabase(databasePath: path, migrator: all)
        let token = try database.changeToken()
        try older.execute("INSERT INTO projects (id, number, created_at) VALUES ('old', '7', 0)")
        #expect(try database.projects.all().map(\.id) == ["old"])
        #expect(try database.changeToken() == token, "only the writes that announce move the token")
        try database.projects.upsert(StoredProject(id: "new", number: "8"))
        #expect(try database.changeToken() != token)
        older.close()
    }
}
