import PostgresTestSupport
import ConfigCore
import ConfigStore
import Foundation
import PostgresStore
import StoreTestSupport
import Testing

/// Migrations, the schema's own guarantees, and what only PostgreSQL can be asked to do.
@Suite final class PostgresSchemaTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    private func tables(_ connection: PostgresConnection) throws -> [String] {
        try connection.query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename COLLATE \"C\""
        ) { $0.text(at: 0) }
    }

    @Test func migratesOnceAndRecordsEveryMigration() throws {
        _ = try PostgresFixture(database: database).make()
        let connection = try database.connect()
        let migrator = PostgresMigrator(try Migrator(directory: PostgresTestServer.migrations))
        #expect(try migrator.isUpToDate(connection))
        let known = try Migrator(directory: PostgresTestServer.migrations).latestVersion
        #expect(try PostgresMigrator.appliedVersions(on: connection) == Array(1...known))
        #expect(try tables(connection) == [
            "access_records", "api_keys", "audit_log", "change_policies", "change_requests", "environments", "listener_acks", "projects", "schema_migrations", "sign_in_attempts",
            "store_revision", "template_canaries", "template_heads", "template_versions", "usage_clients", "usage_parameters",
            "usage_permanent", "usage_settings", "usage_sources", "usage_templates", "usage_versions", "webhook_attempts",
            "webhook_deliveries", "webhook_endpoints", "webhook_events",
        ])
        _ = try PostgresFixture(database: database).make(addProject: false)  // up to date: applies nothing
        #expect(try PostgresMigrator.appliedVersions(on: connection) == Array(1...known))
    }

    @Test func refusesASchemaNewerThanItsMigrations() throws {
        _ = try PostgresFixture(database: database).make()
        let connection = try database.connect()
        try connection.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)")
        let known = try Migrator(directory: PostgresTestServer.migrations).latestVersion
        #expect(throws: MigrationError.schemaTooNew(applied: 9999, known: known)) {
            try PostgresFixture(database: self.database).make()
        }
    }

    @Test func aSchemaChangedUnderTheStoreIsNoLongerUpToDate() throws {
        _ = try PostgresFixture(database: database).make()
        let connection = try database.connect()
        try connection.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)")
        #expect(try !PostgresMigrator(Migrator(directory: PostgresTestServer.migrations)).isUpToDate(connection))
    }

    @Test func aFailingMigrationLeavesNoTraceAndNamesTheFile() throws {
        let migrator = PostgresMigrator(Migrator(migrations: [
            Migration(version: 1, name: "good", sql: "CREATE TABLE a (x int);"),
            Migration(version: 2, name: "bad", sql: "CREATE TABLE b (x int); CREATE TABLE broken (;"),
        ]))
        let connection = try database.connect()
        let error = try #require(throws: PostgresMigrationError.self) { try migrator.migrate(connection) }
        guard case .failed(let file, let cause) = error else { return }
        #expect(file == "0002_bad.sql" && cause.code == .syntaxError)
        #expect(try PostgresMigrator.appliedVersions(on: connection) == [1])
        #expect(try tables(connection) == ["a", "schema_migrations"])  // b was rolled back
        // The advisory lock went with the run: another session takes it at once.
        let other = try database.connect()
        #expect(try other.queryFirst("SELECT pg_try_advisory_lock($1)", [.integer(PostgresMigrator.advisoryLockKey)]) {
            $0.bool(at: 0)
        } == true)
    }

    @Test func anInterruptedTransactionLeavesNoHalfWrittenVersion() throws {
        let store = try PostgresFixture(database: database).make()
        try store.publishTag(1)

        // Another connection writes version 2 and moves the head, then goes away uncommitted.
        let crashing = try database.connect()
        try crashing.execute("BEGIN")
        try crashing.execute(
            """
            INSERT INTO template_versions (project, namespace, version_number, template_json, update_time,
                update_origin, update_type) VALUES ('p1', 'firebase', 2, '\\x00', 0, 'REST_API', 'INCREMENTAL_UPDATE')
            """)
        try crashing.execute("UPDATE template_heads SET active_version = 2")
        #expect(try store.templates.activeVersion(project: "p1", namespace: .client)?.versionNumber == 1)
        crashing.close()

        #expect(try store.templates.version(project: "p1", namespace: .client, number: 2) == nil)
        #expect(try store.templates.heads() == [TemplateKey(project: "p1", namespace: .client): 1])
        #expect(try store.publishTag(2).templateText == #"{"n":2}"#)
    }

    @Test func theHeadCanNeverPointAtAMissingVersion() throws {
        let store = try PostgresFixture(database: database).make()
        try store.publishTag(1)
        let connection = try database.connect()
        // The foreign key is checked at commit: a head left at the placeholder, or a pruned
        // active version, makes the whole transaction fail.
        for sql in [
            "UPDATE template_heads SET active_version = 0",
            "DELETE FROM template_versions WHERE version_number = 1",
        ] {
            let error = try #require(throws: PostgresError.self) { try connection.inTransaction { try connection.execute(sql) } }
            #expect(error.code == .foreignKeyViolation)
        }
        #expect(try store.templates.activeVersion(project: "p1", namespace: .client)?.versionNumber == 1)
    }

    @Test func textThatPostgreSQLCannotHoldIsAnInvalidArgument() throws {
        let store = try PostgresFixture(database: database).make()
        let error = try #require(throws: StoreError.self) {
            try store.templates.publish(
                project: "p1", namespace: .client, templateJSON: [0], expectedVersion: nil,
                metadata: PublishMetadata(description: "nul \u{0} inside"))
        }
        guard case .invalidArgument(let message) = error else {
            Issue.record("expected invalidArgument, got \(error)")
            return
        }
        #expect(message.contains("NUL"))
        #expect(try store.templates.heads().isEmpty)
    }
}
