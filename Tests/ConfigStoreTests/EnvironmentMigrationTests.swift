import ConfigCore
import ConfigStore
import Foundation
import PostgresStore
import PostgresTestSupport
import StoreTestSupport
import Testing
import TestSupport

/// Migration 0012 on data written under the schema before environments, on each engine: every
/// template, version, canary and API key is production's as it was, and environments work after.
@Suite struct EnvironmentMigrationTests {
    /// A template as the store keeps it: `{"parameters":{"k":{"defaultValue":{"value":"v"}}}}`.
    static let templateJSON = Array(#"{"parameters":{"k":{"defaultValue":{"value":"v"}}}}"#.utf8)

    /// The rows a server before environments wrote: a project with an API key, three versions of
    /// its client template (the third running as a canary over the active second), and the
    /// server template's first.
    static func oldRows(blob: String) -> String {
        """
        INSERT INTO projects (id, number, display_name, percent_seed, created_at) VALUES ('p1', '1', 'One', '', 1000);
        INSERT INTO api_keys (project, key_hash, name, created_at) VALUES ('p1', 'h', 'app', 1000);
        INSERT INTO template_versions (project, namespace, version_number, template_json, update_time, update_origin, update_type)
            VALUES ('p1', 'firebase', 1, \(blob), 1000, 'REST_API', 'INCREMENTAL_UPDATE'),
                   ('p1', 'firebase', 2, \(blob), 2000, 'REST_API', 'INCREMENTAL_UPDATE'),
                   ('p1', 'firebase-server', 1, \(blob), 2000, 'REST_API', 'INCREMENTAL_UPDATE');
        INSERT INTO template_versions (project, namespace, version_number, template_json, update_time, update_origin, update_type,
                                       canary_action)
            VALUES ('p1', 'firebase', 3, \(blob), 3000, 'REST_API', 'INCREMENTAL_UPDATE', 'CANARY');
        INSERT INTO template_heads (project, namespace, active_version) VALUES ('p1', 'firebase', 2), ('p1', 'firebase-server', 1);
        INSERT INTO template_canaries (project, namespace, canary_version, micro_percent, seed, started_at, updated_at)
            VALUES ('p1', 'firebase', 3, 5000000, 'seed', 3000, 3000);
        """
    }

    /// The repository's migrations of `engine` before environments, in a folder of their own.
    static func migrationsBeforeEnvironments(_ engine: StoreEngine, in directory: TemporaryDirectory) throws -> Migrator {
        let all = engine == .sqlite ? SQLiteFixture.migrations : PostgresTestServer.migrations
        let older = try Migrator(directory: all).migrations.filter { $0.version < 12 }
        #expect(older.count == 11)
        return Migrator(migrations: older)
    }

    @Test(arguments: StoreEngine.allCases) func everyStoredTemplateIsProductionsAfterTheMigration(engine: StoreEngine) throws {
        let directory = try TemporaryDirectory("rcs-migration")
        let older = try Self.migrationsBeforeEnvironments(engine, in: directory)
        let store: any ConfigDatabase
        var keep: Any?
        switch engine {
        case .sqlite:
            let path = directory.url.appendingPathComponent("store.sqlite").path
            let database = try SQLiteDatabase(path: path)
            try older.migrate(database)
            try database.executeScript(Self.oldRows(blob: "X'" + Self.templateJSON.map { String(format: "%02X", $0) }.joined() + "'"))
            store = try SQLiteConfigDatabase(databasePath: path, migrationsDirectory: SQLiteFixture.migrations)
        case .postgres:
            let database = try TestDatabase()
            let connection = try database.connect()
            _ = try PostgresMigrator(older).migrate(connection)
            try connection.executeScript(Self.oldRows(blob: "'\\x" + Self.templateJSON.map { String(format: "%02x", $0) }.joined() + "'::bytea"))
            store = try PostgresFixture.database(url: database.url)
            keep = database
        }
        defer { withExtendedLifetime(keep) {} }
        let head = try store.templates.headState(project: "p1", namespace: .client)
        #expect(head.active == 2 && head.canary?.canaryVersion == 3 && head.canary?.microPercent == 5_000_000)
        #expect(try store.templates.activeVersion(project: "p1", namespace: .client)?.templateJSON == Self.templateJSON)
        #expect(try store.templates.version(project: "p1", namespace: .client, number: 1) != nil)
        #expect(try store.templates.activeVersion(project: "p1", namespace: .server)?.versionNumber == 1)
        #expect(try store.projects.apiKeys(project: "p1").map(\.environment) == [.production])
        #expect(try store.projects.allEnvironments()["p1"]?.map(\.id) == [.production])
        // The canary still ends as it would have, and environments work.
        _ = try store.templates.promoteCanary(project: "p1", namespace: .client, expectedCanary: 3, metadata: PublishMetadata())
        #expect(try store.templates.headState(project: "p1", namespace: .client).active == 4)
        let staging = try #require(EnvironmentID(rawValue: "staging"))
        _ = try store.projects.createEnvironment(project: "p1", id: staging, displayName: "Staging")
        let published = try store.templates.publish(project: "p1", namespace: TemplateNamespace(.client, in: staging),
                                                    templateJSON: Self.templateJSON, expectedVersion: 0, metadata: PublishMetadata())
        #expect(published.versionNumber == 1 && published.namespace.environment == staging)
        #expect(try store.templates.headState(project: "p1", namespace: .client).active == 4, "production is its own")
    }
}
