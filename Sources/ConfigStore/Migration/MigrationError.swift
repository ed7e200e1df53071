/// Why the schema could not be brought up to date.
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The migrations directory could not be listed.
    case unreadableDirectory(path: String, reason: String)
    /// The directory holds no `*.sql` file; usually a wrong `RCS_MIGRATIONS_DIR`.
    case noMigrations(path: String)
    /// A `*.sql` file whose name is not `NNNN_name.sql`.
    case invalidFileName(path: String)
    /// A migration file could not be read as UTF-8.
    case unreadableFile(path: String, reason: String)
    /// Two files share a version number.
    case duplicateVersion(Int, files: [String])
    /// The database was migrated by a newer build: it has migration `applied`, this build
    /// knows migrations only up to `known`. Refusing protects the newer schema.
    case schemaTooNew(applied: Int, known: Int)
    /// A migration's SQL failed; nothing of it was applied.
    case failed(file: String, error: SQLiteError)

    public var description: String {
        switch self {
        case .unreadableDirectory(let path, let reason):
            "cannot list migrations directory \(path): \(reason)"
        case .noMigrations(let path):
            "no NNNN_name.sql migrations in \(path)"
        case .invalidFileName(let path):
            "migration file \(path) is not named NNNN_name.sql"
        case .unreadableFile(let path, let reason):
            "cannot read migration \(path): \(reason)"
        case .duplicateVersion(let version, let files):
            "migration version \(version) is used by several files: \(files.joined(separator: ", "))"
        case .schemaTooNew(let applied, let known):
            "database schema is at migration \(applied) but this build knows migrations only up to \(known); "
                + "upgrade the server or point it at a matching database"
        case .failed(let file, let error):
            "migration \(file) failed: \(error)"
        }
    }
}
