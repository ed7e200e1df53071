package import ConfigCore

/// `ProjectStore`, written once for every engine. Every write announces `projects`: each worker
/// keeps the projects and their keys in memory.
package struct SQLProjectStore<Engine: DatabaseEngine>: ProjectStore {
    let engine: Engine

    package init(engine: Engine) {
        self.engine = engine
    }

    package func upsert(_ project: StoredProject) throws(StoreError) {
        if let problem = ProjectIdentity.problem(id: project.id, number: project.number) {
            throw StoreError.invalidArgument(problem)
        }
        let createdAt = TemplateStoreRules.milliseconds(engine.clock())
        // Held, so that the number check sees a project another node just committed.
        try engine.write(announcing: .projects, holding: .projects) { connection in
            let owner = try connection.rows("SELECT id FROM projects WHERE number = ?", [.text(project.number)]) {
                $0.text(at: 0)
            }.first
            if let owner, owner != project.id {
                throw StoreError.projectNumberTaken(number: project.number, project: owner)
            }
            try connection.run(
                """
                INSERT INTO projects (id, number, display_name, percent_seed, created_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET
                    number = excluded.number, display_name = excluded.display_name, percent_seed = excluded.percent_seed
                """,
                [.text(project.id), .text(project.number), .text(project.displayName), .text(project.percentSeed),
                 .integer(createdAt)])
            // Every project has production.
            try connection.run(
                """
                INSERT INTO environments (project, id, display_name, position, soak_seconds, created_at) VALUES (?, ?, ?, ?, 0, ?)
                ON CONFLICT (project, id) DO NOTHING
                """,
                [.text(project.id), .text(EnvironmentID.production.rawValue), .text("Production"),
                 .integer(StoredEnvironment.productionPosition), .integer(createdAt)])
        }
    }

    package func all() throws(StoreError) -> [StoredProject] {
        try engine.read { connection in
            try connection.rows("SELECT \(StoreColumns.project) FROM projects ORDER BY id\(Engine.Connection.bytewiseCollation)", []) {
                StoreColumns.decodeProject($0)
            }
        }
    }

    package func addAPIKey(project: String, keyHash: String, name: String, environment: EnvironmentID) throws(StoreError) {
        let createdAt = TemplateStoreRules.milliseconds(engine.clock())
        try engine.write(announcing: .projects) { connection in
            try connection.requireProject(project)
            try connection.requireEnvironment(environment, of: project)
            try connection.run(
                """
                INSERT INTO api_keys (project, key_hash, name, created_at, environment) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (project, key_hash) DO UPDATE SET name = excluded.name, environment = excluded.environment
                """,
                [.text(project), .text(keyHash), .text(name), .integer(createdAt), .text(environment.rawValue)])
        }
    }

    @discardableResult
    package func removeAPIKey(project: String, keyHash: String) throws(StoreError) -> Bool {
        try engine.write(announcing: .projects) { connection in
            try connection.run("DELETE FROM api_keys WHERE project = ? AND key_hash = ?", [.text(project), .text(keyHash)]) > 0
        }
    }

    package func apiKeys(project: String) throws(StoreError) -> [StoredAPIKey] {
        try engine.read { connection in
            try connection.rows(
                "SELECT \(StoreColumns.apiKey) FROM api_keys WHERE project = ? ORDER BY created_at, key_hash\(Engine.Connection.bytewiseCollation)",
                [.text(project)]) { StoreColumns.decodeAPIKey($0) }
        }
    }

    package func allAPIKeys() throws(StoreError) -> [String: [StoredAPIKey]] {
        let keys = try engine.read { connection in
            try connection.rows(
                """
                SELECT project, \(StoreColumns.apiKey) FROM api_keys
                ORDER BY project, created_at, key_hash\(Engine.Connection.bytewiseCollation)
                """, []) { ($0.text(at: 0), StoreColumns.decodeAPIKey($0, from: 1)) }
        }
        return Dictionary(grouping: keys, by: \.0).mapValues { $0.map(\.1) }
    }
}
