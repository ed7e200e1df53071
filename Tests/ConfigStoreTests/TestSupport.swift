import ConfigCore
import ConfigStore
import Foundation
import TestSupport

/// The repository's `migrations/sqlite` directory.
let repositoryMigrations = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("migrations/sqlite", isDirectory: true)

extension SQLiteTemplateStore {
    /// A store over `directory/store.sqlite` with the repository's migrations and project `p1`.
    static func make(
        in directory: URL, retention: Int = 300, clock: ManualClock? = nil, addProject: Bool = true
    ) throws -> SQLiteTemplateStore {
        let store: SQLiteTemplateStore
        if let clock {
            store = try SQLiteTemplateStore(
                databasePath: directory.appendingPathComponent("store.sqlite").path,
                migrationsDirectory: repositoryMigrations, retention: retention, clock: { clock.now })
        } else {
            store = try SQLiteTemplateStore(
                databasePath: directory.appendingPathComponent("store.sqlite").path,
                migrationsDirectory: repositoryMigrations, retention: retention)
        }
        if addProject {
            try store.upsertProject(StoredProject(id: "p1", number: "1001", displayName: "Project One"))
        }
        return store
    }

    /// Publishes `{"n":<tag>}` to p1/firebase without a version check.
    @discardableResult
    func publishTag(_ tag: Int, namespace: TemplateNamespace = .client) throws -> StoredVersion {
        try publish(
            project: "p1", namespace: namespace, templateJSON: Array("{\"n\":\(tag)}".utf8), expectedVersion: nil,
            metadata: PublishMetadata(updateUser: "dev@example.com", description: "tag \(tag)"))
    }
}

extension StoredVersion {
    var templateText: String { String(decoding: templateJSON, as: UTF8.self) }
}
