import ConfigCore
import ConfigStore
import Foundation
import Synchronization

/// The repository's `migrations/sqlite` directory.
let repositoryMigrations = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("migrations/sqlite", isDirectory: true)

/// A fresh directory, removed when the owner (a test suite instance) goes away.
///
/// Suites hold one per test instead of wrapping each test body in a closure: Swift 6.3.1 can
/// give a closure written inside `#require(throws:)` in a nested closure the same symbol as a
/// later closure of that outer closure, so the wrong code runs.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("rcs-store-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let now: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        now = Mutex(start)
    }

    func read() -> Date { now.withLock { $0 } }

    func advance(seconds: TimeInterval) {
        now.withLock { $0 += seconds }
    }
}

extension SQLiteTemplateStore {
    /// A store over `directory/store.sqlite` with the repository's migrations and project `p1`.
    static func make(
        in directory: URL, retention: Int = 300, clock: ManualClock? = nil, addProject: Bool = true
    ) throws -> SQLiteTemplateStore {
        let store: SQLiteTemplateStore
        if let clock {
            store = try SQLiteTemplateStore(
                databasePath: directory.appendingPathComponent("store.sqlite").path,
                migrationsDirectory: repositoryMigrations, retention: retention, clock: { clock.read() })
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
