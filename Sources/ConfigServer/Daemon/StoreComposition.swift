import ConfigStore
import Logging
import PostgresStore

/// The one place that names the store implementations: the server sees `any ConfigDatabase`.
enum StoreComposition {
    /// The threads of a worker that call the store, each one call at a time: its store queue,
    /// its reload queue and the node's store listener. The PostgreSQL pool is this size, since
    /// a worker can use no more connections at once.
    static let serialStoreUsersPerWorker = 3

    /// Opens the configured store and brings its schema up to date.
    /// - Parameter logger: receives the database server's notices (PostgreSQL).
    /// - Throws: `ConfigurationError` when migrations are missing, `MigrationError` for a schema
    ///   this build does not know, or the engine's error when it cannot be opened.
    static func open(_ configuration: ServerConfiguration, logger: Logger) throws -> any ConfigDatabase {
        let engine = configuration.store.kind.rawValue
        guard let migrations = Migrator.defaultMigrationsDirectory(engine: engine) else {
            throw ConfigurationError("cannot find the migrations directory; set RCS_MIGRATIONS_DIR")
        }
        switch configuration.store.kind {
        case .sqlite:
            return try SQLiteConfigDatabase(databasePath: configuration.databasePath, migrationsDirectory: migrations,
                                            retention: configuration.templates.retention)
        case .postgres:
            return try PostgresConfigDatabase(
                url: configuration.store.url, migrationsDirectory: migrations, retention: configuration.templates.retention,
                connections: serialStoreUsersPerWorker,
                acknowledgementTimeout: .milliseconds(Int(configuration.store.acknowledgementSeconds * 1000)),
                operationTimeout: configuration.store.requestTimeout,
                abandonedTransactionTimeout: .milliseconds(Int(configuration.store.abandonedTransactionSeconds * 1000)),
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
