import ConfigCore
import ConfigStore
import Foundation
import TestSupport
import Testing

@Suite final class SQLiteTemplateStoreTests {
    private let temporary: TemporaryDirectory
    private var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory()
    }

    @Test func migratesOnceAndReportsHealthy() throws {
        let path = directory.appendingPathComponent("nested/dir/store.sqlite").path
        let store = try SQLiteTemplateStore(databasePath: path, migrationsDirectory: repositoryMigrations)
        #expect(store.isHealthy())
        store.close()
        #expect(!store.isHealthy())

        let reopened = try SQLiteTemplateStore(databasePath: path, migrationsDirectory: repositoryMigrations)
        #expect(reopened.isHealthy())
        let database = try SQLiteDatabase(path: path)
        let known = try Migrator(directory: repositoryMigrations).latestVersion
        #expect(try Migrator.appliedVersions(in: database) == Array(1...known))
        #expect(try database.queryFirst("SELECT count(*) FROM schema_migrations") { $0.int64(at: 0) } == Int64(known))
    }

    @Test func refusesASchemaNewerThanItsMigrations() throws {
        let path = directory.appendingPathComponent("store.sqlite").path
        _ = try SQLiteTemplateStore(databasePath: path, migrationsDirectory: repositoryMigrations)
        try SQLiteDatabase(path: path).execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)")
        let known = try Migrator(directory: repositoryMigrations).latestVersion
        #expect(throws: MigrationError.schemaTooNew(applied: 9999, known: known)) {
            try SQLiteTemplateStore(databasePath: path, migrationsDirectory: repositoryMigrations)
        }
    }

    @Test func projectsAndAPIKeys() throws {
        let store = try SQLiteTemplateStore.make(in: directory)
        let p1 = StoredProject(id: "p1", number: "1001", displayName: "Project One")
        #expect(try store.project(idOrNumber: "p1") == p1)
        #expect(try store.project(idOrNumber: "1001") == p1)
        #expect(try store.project(idOrNumber: "nope") == nil)

        let renamed = StoredProject(id: "p1", number: "1002", displayName: "Renamed", percentSeed: "seed")
        try store.upsertProject(renamed)
        try store.upsertProject(StoredProject(id: "a0", number: "7"))
        #expect(try store.projects() == [StoredProject(id: "a0", number: "7"), renamed])
        #expect(try store.project(idOrNumber: "1001") == nil)

        #expect(throws: StoreError.projectNumberTaken(number: "7", project: "a0")) {
            try store.upsertProject(StoredProject(id: "p2", number: "7"))
        }
        #expect(throws: StoreError.self) { try store.upsertProject(StoredProject(id: "p2", number: "12a")) }
        #expect(throws: StoreError.self) { try store.upsertProject(StoredProject(id: "", number: "12")) }

        try store.addAPIKey(project: "p1", keyHash: "h1", name: "web")
        try store.addAPIKey(project: "p1", keyHash: "h2", name: "ios")
        try store.addAPIKey(project: "p1", keyHash: "h1", name: "web renamed")
        try store.addAPIKey(project: "a0", keyHash: "h1", name: "shared")
        #expect(try store.apiKeyHashes(project: "p1") == ["h1", "h2"])
        #expect(try store.projectIDs(forAPIKeyHash: "h1") == ["a0", "p1"])
        #expect(try store.removeAPIKey(project: "p1", keyHash: "h2"))
        #expect(try !store.removeAPIKey(project: "p1", keyHash: "h2"))
        #expect(try store.apiKeyHashes(project: "p1") == ["h1"])
        #expect(throws: StoreError.projectNotFound("ghost")) {
            try store.addAPIKey(project: "ghost", keyHash: "h", name: "")
        }
    }

    @Test func publishNumbersVersionsFromOneAndMovesTheHead() throws {
        let clock = ManualClock()
        let store = try SQLiteTemplateStore.make(in: directory, clock: clock)
        #expect(try store.activeVersion(project: "p1", namespace: .client) == nil)

        let first = try store.publish(
            project: "p1", namespace: .client, templateJSON: Array(#"{"a":"\u0000"}"#.utf8), expectedVersion: 0,
            metadata: PublishMetadata(updateUser: "me@example.com", description: "first", updateOrigin: "CONSOLE"))
        #expect(first.versionNumber == 1)
        #expect(first.updateTime == clock.now)
        #expect(first.updateType == .incrementalUpdate)
        #expect(first.rollbackSource == nil)
        #expect(try store.activeVersion(project: "p1", namespace: .client) == first)
        #expect(try store.version(project: "p1", namespace: .client, number: 1) == first)

        clock.advance(by: 1)
        let forced = try store.publish(
            project: "p1", namespace: .client, templateJSON: [], expectedVersion: nil,
            metadata: PublishMetadata(updateType: UpdateType.forcedUpdate))
        #expect(forced.versionNumber == 2)
        #expect(forced.templateJSON == [])
        #expect(forced.updateUser == nil && forced.description == nil)

        // Namespaces are versioned independently.
        #expect(try store.publishTag(1, namespace: .server).versionNumber == 1)
        #expect(try store.heads() == [
            TemplateKey(project: "p1", namespace: .client): 2, TemplateKey(project: "p1", namespace: .server): 1,
        ])
    }

    @Test func publishChecksTheExpectedVersion() throws {
        let store = try SQLiteTemplateStore.make(in: directory)
        #expect(throws: StoreError.versionMismatch(current: 0)) {
            try store.publish(
                project: "p1", namespace: .client, templateJSON: [], expectedVersion: 3, metadata: PublishMetadata())
        }
        try store.publishTag(1)
        try store.publishTag(2)
        #expect(throws: StoreError.versionMismatch(current: 2)) {
            try store.publish(
                project: "p1", namespace: .client, templateJSON: [], expectedVersion: 1, metadata: PublishMetadata())
        }
        let next = try store.publish(
            project: "p1", namespace: .client, templateJSON: [1], expectedVersion: 2, metadata: PublishMetadata())
        #expect(next.versionNumber == 3)
    }

    @Test func publishRejectsBadInput() throws {
        let store = try SQLiteTemplateStore.make(in: directory)
        #expect(throws: StoreError.projectNotFound("ghost")) {
            try store.publish(project: "ghost", namespace: .client, templateJSON: [], expectedVersion: nil,
                              metadata: PublishMetadata())
        }
        #expect(throws: StoreError.self) {
            try store.publish(project: "p1", namespace: .client, templateJSON: [], expectedVersion: nil,
                              metadata: PublishMetadata(updateType: .rollback))
        }
        #expect(throws: StoreError.self) {
            try SQLiteTemplateStore.make(in: directory, retention: 0)
        }
        #expect(try store.heads().isEmpty)
    }

    @Test func rollbackCopiesAnOlderVersionAsANewOne() throws {
        let store = try SQLiteTemplateStore.make(in: directory)
        for tag in 1...3 { try store.publishTag(tag) }
        let rolledBack = try store.rollback(
            project: "p1", namespace: .client, to: 1,
            metadata: PublishMetadata(updateUser: "ops@example.com", updateType: UpdateType.forcedUpdate))
        #expect(rolledBack.versionNumber == 4)
        #expect(rolledBack.updateType == .rollback)
        #expect(rolledBack.rollbackSource == 1)
        #expect(rolledBack.description == "Rollback to version 1")
        #expect(rolledBack.updateUser == "ops@example.com")
        #expect(rolledBack.templateText == #"{"n":1}"#)
        #expect(try store.activeVersion(project: "p1", namespace: .client) == rolledBack)

        #expect(throws: StoreError.versionNotFound(9)) {
            try store.rollback(project: "p1", namespace: .client, to: 9, metadata: PublishMetadata())
        }
        #expect(throws: StoreError.versionNotFound(0)) {
            try store.rollback(project: "p1", namespace: .client, to: 0, metadata: PublishMetadata())
        }
        #expect(throws: StoreError.rollbackTargetNotOlder(target: 4, current: 4)) {
            try store.rollback(project: "p1", namespace: .client, to: 4, metadata: PublishMetadata())
        }
        #expect(throws: StoreError.versionNotFound(1)) {
            try store.rollback(project: "p1", namespace: .server, to: 1, metadata: PublishMetadata())
        }
    }

    @Test(arguments: [1, 5])
    func retentionKeepsTheNewestVersionsIncludingTheActiveOne(retention: Int) throws {
        let store = try SQLiteTemplateStore.make(in: directory, retention: retention)
        for tag in 1...12 { try store.publishTag(tag) }
        try store.publishTag(1, namespace: .server)

        let kept = try store.listVersions(project: "p1", namespace: .client).versions.map(\.versionNumber)
        #expect(kept == Array((13 - Int64(retention))...12).reversed())
        #expect(try store.activeVersion(project: "p1", namespace: .client)?.templateText == #"{"n":12}"#)
        #expect(try store.version(project: "p1", namespace: .client, number: 12 - Int64(retention)) == nil)
        #expect(try store.listVersions(project: "p1", namespace: .server).versions.count == 1)
        #expect(throws: StoreError.versionNotFound(2)) {
            try store.rollback(project: "p1", namespace: .client, to: 2, metadata: PublishMetadata())
        }
        if retention > 1 {
            let rolledBack = try store.rollback(project: "p1", namespace: .client, to: 9, metadata: PublishMetadata())
            #expect(rolledBack.versionNumber == 13)
            #expect(try store.listVersions(project: "p1", namespace: .client).versions.map(\.versionNumber)
                == Array((14 - Int64(retention))...13).reversed())
        }
    }

    @Test func reopeningKeepsEverything() throws {
        let store = try SQLiteTemplateStore.make(in: directory)
        try store.addAPIKey(project: "p1", keyHash: "hash", name: "key")
        let published = try (1...3).map { try store.publishTag($0) }
        let rolledBack = try store.rollback(project: "p1", namespace: .client, to: 2, metadata: PublishMetadata())
        store.close()
        #expect {
            try store.publishTag(9)
        } throws: { error in
            guard case StoreError.unavailable(let reason) = error else { return false }
            return reason.contains("closed")
        }

        let reopened = try SQLiteTemplateStore.make(in: directory, addProject: false)
        #expect(try reopened.projects() == [StoredProject(id: "p1", number: "1001", displayName: "Project One")])
        #expect(try reopened.apiKeyHashes(project: "p1") == ["hash"])
        #expect(try reopened.listVersions(project: "p1", namespace: .client, includeTemplateJSON: true).versions
            == [rolledBack] + published.reversed())
        #expect(try reopened.publishTag(5).versionNumber == 5)
    }

    @Test func changeTokenMovesOnEveryCommitFromAnyConnection() throws {
        let store = try SQLiteTemplateStore.make(in: directory)
        let other = try SQLiteTemplateStore.make(in: directory, addProject: false)
        let start = try store.changeToken()
        #expect(try store.changeToken() == start)

        try other.publishTag(1)
        let afterOther = try store.changeToken()
        #expect(afterOther != start)
        #expect(try store.heads() == [TemplateKey(project: "p1", namespace: .client): 1])

        try store.publishTag(2)  // the store's own writer counts too
        #expect(try store.changeToken() != afterOther)
        #expect(try other.heads() == [TemplateKey(project: "p1", namespace: .client): 2])
    }

    @Test func interruptedTransactionLeavesNoHalfWrittenVersion() throws {
        let store = try SQLiteTemplateStore.make(in: directory)
        try store.publishTag(1)

        // Another connection writes version 2 and moves the head, then goes away uncommitted.
        let crashing = try SQLiteDatabase(path: store.databasePath)
        try crashing.execute("BEGIN IMMEDIATE")
        try crashing.execute(
            """
            INSERT INTO template_versions (project, namespace, version_number, template_json, update_time,
                update_origin, update_type) VALUES ('p1', 'firebase', 2, X'00', 0, 'REST_API', 'INCREMENTAL_UPDATE')
            """)
        try crashing.execute("UPDATE template_heads SET active_version = 2")
        #expect(try store.activeVersion(project: "p1", namespace: .client)?.versionNumber == 1)
        crashing.close()

        #expect(try store.version(project: "p1", namespace: .client, number: 2) == nil)
        #expect(try store.heads() == [TemplateKey(project: "p1", namespace: .client): 1])
        let next = try store.publishTag(2)
        #expect(next.versionNumber == 2)
        #expect(try store.version(project: "p1", namespace: .client, number: 2)?.templateText == #"{"n":2}"#)
    }
}
