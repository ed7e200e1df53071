public import ConfigCore
public import ConfigStore
public import Foundation
import PostgresStore
import Synchronization
public import PostgresTestSupport
public import Testing
import TestSupport

/// The engines every store test that is not about one engine runs on.
public enum StoreEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    public var testDescription: String { rawValue }

    /// Fresh data of this engine (gone when the fixture is).
    public func fixture() throws -> any StoreFixture {
        switch self {
        case .sqlite: try SQLiteFixture()
        case .postgres: PostgresFixture(database: try TestDatabase())
        }
    }
}

/// Opens `PostgresConfigDatabase`s on one test database.
public struct PostgresFixture: StoreFixture {
    public let database: TestDatabase
    /// How long a write waits for listeners: short, since most tests' listeners never
    /// acknowledge (the tests that need the wait give a long one).
    public var acknowledgementTimeout: Duration = .milliseconds(100)

    public init(database: TestDatabase, acknowledgementTimeout: Duration = .milliseconds(100)) {
        self.database = database
        self.acknowledgementTimeout = acknowledgementTimeout
    }

    public func open(retention: Int, clock: ManualClock?) throws -> any ConfigDatabase {
        try PostgresConfigDatabase(
            url: database.url, migrationsDirectory: PostgresTestServer.migrations, retention: retention,
            acknowledgementTimeout: acknowledgementTimeout, clock: clock.function)
    }

    /// A database on `url` with the repository's migrations.
    public static func database(url: String) throws -> any ConfigDatabase {
        try PostgresConfigDatabase(url: url, migrationsDirectory: PostgresTestServer.migrations)
    }
}

/// Opens `SQLiteConfigDatabase`s on one file in a directory removed when the fixture goes away.
public struct SQLiteFixture: StoreFixture {
    /// The repository's `migrations/sqlite`.
    public static let migrations = PostgresTestServer.repository.appendingPathComponent("migrations/sqlite")

    private let directory: TemporaryDirectory

    public init() throws {
        directory = try TemporaryDirectory("rcs-contract")
    }

    /// The database file.
    public var path: String { directory.url.appendingPathComponent("store.sqlite").path }

    public func open(retention: Int, clock: ManualClock?) throws -> any ConfigDatabase {
        try SQLiteConfigDatabase(
            databasePath: path, migrationsDirectory: Self.migrations, retention: retention, clock: clock.function)
    }
}

extension ManualClock? {
    /// The clock as a store takes it: this one, or the wall clock.
    public var function: @Sendable () -> Date {
        guard let clock = self else { return { Date() } }
        return { clock.now }
    }
}

/// Fresh data of each engine a test case asks for, kept as long as this value is: a suite holds
/// one, and Swift Testing makes a suite instance per case, alive while the case runs.
public final class FreshData: Sendable {
    private let fixtures = Mutex<[any StoreFixture]>([])

    public init() {}

    /// Fresh data of `engine`.
    public func fixture(_ engine: StoreEngine) throws -> any StoreFixture {
        let fixture = try engine.fixture()
        fixtures.withLock { $0.append(fixture) }
        return fixture
    }
}
