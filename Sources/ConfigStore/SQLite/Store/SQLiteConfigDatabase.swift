public import ConfigCore
public import Foundation
import Synchronization

/// The embedded `ConfigDatabase`: one SQLite file shared safely by several threads and
/// processes of one machine.
///
/// It owns two connections, each behind its own `Mutex`:
/// - the *writer* runs every write in a `BEGIN IMMEDIATE` transaction. The mutex serializes
///   this process's writers; SQLite's write lock, waited for with `busy_timeout`, serializes
///   them with other processes. That is what keeps version numbers gap-free and monotonic.
/// - the *reader* (`query_only`) serves lookups and the change token; in WAL mode they run
///   while a write is in progress and always see the last committed state.
///
/// A write returns only after its commit is durable (`synchronous=FULL`); an announced one
/// increments `store_revision`, the change token, in its transaction. The stores' rules and SQL
/// are shared with PostgreSQL (`DatabaseEngine+Stores`); this type gives them its connections.
public final class SQLiteConfigDatabase: ConfigDatabase, DatabaseEngine {
    /// How many versions are kept per (project, namespace); the active one is always kept.
    public let retention: Int
    /// The database file.
    public let databasePath: String
    package let clock: @Sendable () -> Date
    private let writer: Mutex<SQLiteDatabase>
    private let reader: Mutex<SQLiteDatabase>

    /// Opens (creating as needed) the database and its directory, and applies the migrations
    /// found in `migrationsDirectory`.
    /// - Parameters:
    ///   - databasePath: the SQLite file; must be a real file (each connection opens it).
    ///   - migrationsDirectory: holds `NNNN_name.sql`; see `Migrator.defaultMigrationsDirectory(engine: "sqlite")`.
    ///   - retention: versions kept per (project, namespace), at least 1.
    ///   - clock: the source of every time the stores write.
    /// - Throws: `MigrationError` (including `schemaTooNew`), `SQLiteError` when the file cannot
    ///   be opened, or `StoreError.invalidArgument` for a retention below 1.
    public convenience init(
        databasePath: String,
        migrationsDirectory: URL,
        retention: Int = 300,
        clock: @escaping @Sendable () -> Date = { SystemClock().now }
    ) throws {
        try self.init(
            databasePath: databasePath, migrator: Migrator(directory: migrationsDirectory),
            retention: retention, clock: clock)
    }

    /// Like `init(databasePath:migrationsDirectory:retention:clock:)` with migrations given
    /// directly.
    public init(
        databasePath: String,
        migrator: Migrator,
        retention: Int = 300,
        clock: @escaping @Sendable () -> Date = { SystemClock().now }
    ) throws {
        guard retention >= 1 else {
            throw StoreError.invalidArgument("retention must be at least 1, got \(retention)")
        }
        let directory = URL(fileURLWithPath: databasePath).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

        let writer = try SQLiteDatabase(path: databasePath)
        try migrator.migrate(writer)
        let readOnly = SQLiteDatabase.Configuration(createIfMissing: false, journalMode: nil, queryOnly: true)
        let reader = try SQLiteDatabase(path: databasePath, configuration: readOnly)

        self.databasePath = databasePath
        self.retention = retention
        self.clock = clock
        self.writer = Mutex(writer)
        self.reader = Mutex(reader)
    }

    /// Closes the connections. Later calls throw `StoreError.unavailable` ("database is
    /// closed"). Idempotent; also done on deinit.
    public func close() {
        reader.withLock { $0.close() }
        writer.withLock { $0.close() }
    }

    // MARK: Connection access

    // `body` is @Sendable so that handing it the connection does not merge the connection's
    // region with the caller's; the connection never leaves the mutex.

    /// Runs `body` on the reader connection.
    package func read<Result: Sendable>(
        _ body: @Sendable (SQLiteStoreConnection) throws -> Result
    ) throws(StoreError) -> Result {
        do {
            return try reader.withLock { database in try body(SQLiteStoreConnection(database: database)) }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Runs `body` in an IMMEDIATE transaction on the writer connection, which already runs
    /// every write alone (no `lock` to take). Nothing is sent: on one machine the workers
    /// announce their own writes, and poll the change token, which an announced write moves
    /// here, for the others'.
    @discardableResult
    package func write<Result: Sendable>(
        announcing announcement: Announcement<Result>, holding lock: WriteLock?, _ body: @Sendable (SQLiteStoreConnection) throws -> Result
    ) throws(StoreError) -> Result {
        do {
            return try writer.withLock { database in
                try database.inTransaction(.immediate) {
                    let result = try body(SQLiteStoreConnection(database: database))
                    if announcement.isAnnounced {
                        try database.execute("UPDATE store_revision SET revision = revision + 1")
                    }
                    // Last: a request already answered as refused must not change anything.
                    guard StoreDeadline.claimCommit() else {
                        throw StoreError.unavailable("the request was refused before its commit")
                    }
                    return result
                }
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// A `StoreError` as is; a full disk as `outOfSpace`; any other SQLite failure (busy past
    /// the timeout, I/O, a closed connection, a broken constraint the checks above should have
    /// caught) as `unavailable`.
    static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError: error
        case SQLiteError.ResultCode.full: .outOfSpace("\(error)")
        default: .unavailable("\(error)")
        }
    }
}
