import PostgresTestSupport
import ConfigStore
import Foundation
import PostgresStore
import Testing
import TestSupport

/// The engines the contract runs on.
enum StoreEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// The contract on fresh data of this engine (gone when the contract value is).
    func contract() throws -> StoreContract {
        switch self {
        case .sqlite: StoreContract(fixture: try SQLiteFixture())
        case .postgres: StoreContract(fixture: try PostgresFixture(database: TestDatabase()))
        }
    }
}

/// Opens `PostgresTemplateStore`s on one test database.
struct PostgresFixture: StoreFixture {
    let database: TestDatabase
    /// How long a write waits for listeners: short, since most tests' listeners never
    /// acknowledge (the tests that need the wait give a long one).
    var acknowledgementTimeout: Duration = .milliseconds(100)

    func open(retention: Int, clock: ManualClock?) throws -> any TemplateStore {
        try PostgresTemplateStore(
            url: database.url, migrationsDirectory: PostgresTestServer.migrations, retention: retention,
            acknowledgementTimeout: acknowledgementTimeout, clock: clock.function)
    }

    /// A store on `url` with the repository's migrations.
    static func store(url: String) throws -> any TemplateStore {
        try PostgresTemplateStore(url: url, migrationsDirectory: PostgresTestServer.migrations)
    }
}

/// Opens `SQLiteTemplateStore`s on one file in a directory removed when the fixture goes away.
struct SQLiteFixture: StoreFixture {
    private let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory("rcs-contract")
    }

    func open(retention: Int, clock: ManualClock?) throws -> any TemplateStore {
        try SQLiteTemplateStore(
            databasePath: directory.url.appendingPathComponent("store.sqlite").path,
            migrationsDirectory: PostgresTestServer.repository.appendingPathComponent("migrations/sqlite"),
            retention: retention, clock: clock.function)
    }
}

extension ManualClock? {
    /// The clock as a store takes it: this one, or the wall clock.
    var function: @Sendable () -> Date {
        guard let clock = self else { return { Date() } }
        return { clock.now }
    }
}
