import ConfigCore

/// Projects and their API key hashes.
extension SQLiteTemplateStore {
    /// Creates the project, or updates the number, name and seed of the one with this ID.
    /// - Throws: `StoreError.invalidArgument` for an empty/long ID or a number that is not
    ///   1 to 32 digits; `StoreError.projectNumberTaken` when another project has the number.
    public func upsertProject(_ project: StoredProject) throws(StoreError) {
        if let problem = ProjectIdentity.problem(id: project.id, number: project.number) {
            throw StoreError.invalidArgument(problem)
        }
        let createdAt = TemplateStoreRules.milliseconds(clock())
        try write { database in
            let owner = try database.queryFirst("SELECT id FROM projects WHERE number = ?", [.text(project.number)]) {
                $0.text(at: 0)
            }
            if let owner, owner != project.id {
                throw StoreError.projectNumberTaken(number: project.number, project: owner)
            }
            try database.execute(
                """
                INSERT INTO projects (id, number, display_name, percent_seed, created_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET
                    number = excluded.number, display_name = excluded.display_name,
                    percent_seed = excluded.percent_seed
                """,
                [.text(project.id), .text(project.number), .text(project.displayName),
                 .text(project.percentSeed), .integer(createdAt)])
        }
    }

    /// Every project, by ID.
    public func projects() throws(StoreError) -> [StoredProject] {
        try read { database in
            try database.query("SELECT \(StoreColumns.project) FROM projects ORDER BY id") { StoreColumns.decodeProject($0) }
        }
    }

    /// Records an API key hash for `project` (re-adding renames it).
    /// - Throws: `StoreError.projectNotFound` for an unknown project ID.
    public func addAPIKey(project: String, keyHash: String, name: String) throws(StoreError) {
        let createdAt = TemplateStoreRules.milliseconds(clock())
        try write { database in
            try SQLiteTemplateConnection(database: database).requireProject(project)
            try database.execute(
                """
                INSERT INTO api_keys (project, key_hash, name, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (project, key_hash) DO UPDATE SET name = excluded.name
                """,
                [.text(project), .text(keyHash), .text(name), .integer(createdAt)])
        }
    }

    /// Forgets an API key hash.
    /// - Returns: whether it was recorded.
    @discardableResult
    public func removeAPIKey(project: String, keyHash: String) throws(StoreError) -> Bool {
        try write { database in
            try database.execute(
                "DELETE FROM api_keys WHERE project = ? AND key_hash = ?", [.text(project), .text(keyHash)]) > 0
        }
    }

    /// The API keys of `project`, oldest first.
    public func apiKeys(project: String) throws(StoreError) -> [StoredAPIKey] {
        try read { database in
            try database.query(
                "SELECT \(StoreColumns.apiKey) FROM api_keys WHERE project = ? ORDER BY created_at, key_hash", [.text(project)]
            ) { StoreColumns.decodeAPIKey($0) }
        }
    }
}
