import ConfigCore
public import ConfigStore

extension PostgresTemplateStore {
    /// Serializes `upsertProject` across nodes (a transaction-level advisory lock, released at
    /// commit), so that its number check sees any project another node just committed.
    static let projectWriteLockKey: Int64 = 0x5243_535F_5052_4F4A  // "RCS_PROJ"

    /// Creates the project, or updates the number, name and seed of the one with this ID.
    /// - Throws: `invalidArgument` for an id or number `ProjectIdentity` refuses,
    ///   `projectNumberTaken` when another project has the number, `unavailable`.
    public func upsertProject(_ project: StoredProject) throws(StoreError) {
        if let problem = ProjectIdentity.problem(id: project.id, number: project.number) {
            throw StoreError.invalidArgument(problem)
        }
        let createdAt = TemplateStoreRules.milliseconds(clock())
        try write { connection in
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [.integer(Self.projectWriteLockKey)])
            let owner = try connection.queryFirst("SELECT id FROM projects WHERE number = $1", [.text(project.number)]) {
                $0.text(at: 0)
            }
            if let owner, owner != project.id {
                throw StoreError.projectNumberTaken(number: project.number, project: owner)
            }
            try connection.execute(
                """
                INSERT INTO projects (id, number, display_name, percent_seed, created_at) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (id) DO UPDATE SET
                    number = excluded.number, display_name = excluded.display_name,
                    percent_seed = excluded.percent_seed
                """,
                [.text(project.id), .text(project.number), .text(project.displayName),
                 .text(project.percentSeed), .integer(createdAt)])
            return ((), .projects)
        }
    }

    /// Every project, by ID.
    public func projects() throws(StoreError) -> [StoredProject] {
        try read { connection in
            try connection.query("SELECT \(StoreColumns.project) FROM projects ORDER BY id COLLATE \"C\"") {
                StoreColumns.decodeProject($0)
            }
        }
    }

    /// Records an API key hash for `project` (re-adding renames it).
    /// - Throws: `projectNotFound`, `unavailable`.
    public func addAPIKey(project: String, keyHash: String, name: String) throws(StoreError) {
        let createdAt = TemplateStoreRules.milliseconds(clock())
        try write { connection in
            try PostgresTemplateConnection(connection: connection).requireProject(project)
            do {
                try connection.execute(
                    """
                    INSERT INTO api_keys (project, key_hash, name, created_at) VALUES ($1, $2, $3, $4)
                    ON CONFLICT (project, key_hash) DO UPDATE SET name = excluded.name
                    """,
                    [.text(project), .text(keyHash), .text(name), .integer(createdAt)])
            } catch let error as PostgresError where error.code == .foreignKeyViolation {
                throw StoreError.projectNotFound(project)  // deleted since the check
            }
            return ((), .projects)
        }
    }

    /// Forgets an API key hash; whether it was recorded.
    public func removeAPIKey(project: String, keyHash: String) throws(StoreError) -> Bool {
        try write { connection in
            let removed = try connection.execute(
                "DELETE FROM api_keys WHERE project = $1 AND key_hash = $2", [.text(project), .text(keyHash)]
            ).affectedRows > 0
            return (removed, .projects)
        }
    }

    /// The API keys of `project`, oldest first.
    public func apiKeys(project: String) throws(StoreError) -> [StoredAPIKey] {
        try read { connection in
            try connection.query(
                "SELECT \(StoreColumns.apiKey) FROM api_keys WHERE project = $1 ORDER BY created_at, key_hash COLLATE \"C\"",
                [.text(project)]
            ) { StoreColumns.decodeAPIKey($0) }
        }
    }
}
