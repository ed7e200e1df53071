import ConfigStore

/// The one place that names the store implementations: the server sees `any TemplateStore`.
enum StoreComposition {
    /// Opens the configured store and brings its schema up to date.
    /// - Throws: `ConfigurationError` when migrations are missing, `MigrationError` for a schema
    ///   this build does not know, or the engine's error when it cannot be opened.
    static func open(_ configuration: ServerConfiguration) throws -> any TemplateStore {
        let engine = configuration.store.kind.rawValue
        guard let migrations = Migrator.defaultMigrationsDirectory(engine: engine) else {
            throw ConfigurationError("cannot find the migrations directory; set RCS_MIGRATIONS_DIR")
        }
        switch configuration.store.kind {
        case .sqlite:
            return try SQLiteTemplateStore(databasePath: configuration.databasePath, migrationsDirectory: migrations,
                                           retention: configuration.templates.retention)
        case .postgres:
            throw ConfigurationError("store.kind postgres is not available in this build")
        }
    }
}
