import ConfigCore
import ConfigStore
import Logging
import PostgresStore
import ServerCore

/// The one place that names the store implementations: the server sees `any ConfigDatabase`.
enum StoreComposition {
    /// Opens the configured store and brings its schema up to date.
    /// - Parameters:
    ///   - holdingListener: whether this worker holds the node's store listener, one more lane
    ///     of its store executor.
    ///   - clock: the source of the times the store records.
    ///   - logger: receives the database server's notices (PostgreSQL).
    /// - Throws: `ConfigurationError` when migrations are missing, `MigrationError` for a schema
    ///   this build does not know, or the engine's error when it cannot be opened.
    static func open(_ configuration: ServerConfiguration, holdingListener: Bool, clock: any WallClock,
                     logger: Logger) throws -> any ConfigDatabase {
        let engine = configuration.store.kind.rawValue
        guard let migrations = Migrator.defaultMigrationsDirectory(engine: engine) else {
            throw ConfigurationError("cannot find the migrations directory; set RCS_MIGRATIONS_DIR")
        }
        switch configuration.store.kind {
        case .sqlite:
            return try SQLiteConfigDatabase(databasePath: configuration.databasePath, migrationsDirectory: migrations,
                                            retention: configuration.templates.retention, clock: { clock.now })
        case .postgres:
            return try PostgresConfigDatabase(
                url: configuration.store.url, migrationsDirectory: migrations, retention: configuration.templates.retention,
                // Every lane of the worker's store executor may hold one at once, and nothing else calls the store.
                connections: StoreExecutor.connections(holdingListener: holdingListener),
                acknowledgementTimeout: .milliseconds(Int(configuration.store.acknowledgementSeconds * 1000)),
                operationTimeout: configuration.store.requestTimeout,
                abandonedTransactionTimeout: .milliseconds(Int(configuration.store.abandonedTransactionSeconds * 1000)),
                clock: { clock.now },
                onNotice: { notice in logger.notice("database notice", metadata: ["notice": "\(notice)"]) })
        }
    }

    /// Names the store for operators: the SQLite file, or the PostgreSQL URL without its
    /// password.
    static func describe(_ configuration: ServerConfiguration) -> String {
        switch configuration.store.kind {
        case .sqlite:
            return "the database \(configuration.databasePath)"
        case .postgres:
            let url = (try? PostgresConnectionSettings(configuration.store.url).description) ?? "(an unreadable URL)"
            return "the PostgreSQL database \(url)"
        }
    }
}
