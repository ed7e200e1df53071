import ConfigStore

extension RemoteConfigStore {
    /// The server's store: the database in the data directory, brought up to date with the
    /// migrations that `Migrator.defaultMigrationsDirectory()` finds.
    static func open(_ configuration: ServerConfiguration) throws -> RemoteConfigStore {
        guard let migrations = Migrator.defaultMigrationsDirectory() else {
            throw ConfigurationError("cannot find the migrations directory; set RCS_MIGRATIONS_DIR")
        }
        return try RemoteConfigStore(databasePath: configuration.databasePath, migrationsDirectory: migrations,
                                     retention: configuration.templates.retention)
    }
}
