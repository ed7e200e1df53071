package import ConfigCore

/// A project's environments (docs/environments.md). Every write announces `projects`: each
/// worker keeps the environments with the projects, to route `…/environments/{environment}/…`.
extension SQLProjectStore {
    package func allEnvironments() throws(StoreError) -> [String: [StoredEnvironment]] {
        let environments = try engine.read { connection in
            try connection.rows(
                "SELECT \(StoreColumns.environment) FROM environments ORDER BY project, position, id\(Engine.Connection.bytewiseCollation)",
                []) { StoreColumns.decodeEnvironment($0) }
        }
        return Dictionary(grouping: environments.compactMap { $0 }, by: \.project)
    }

    package func createEnvironment(project: String, id: EnvironmentID, displayName: String) throws(StoreError) -> StoredEnvironment {
        guard id != .production else { throw StoreError.invalidArgument("every project has 'production' already") }
        let now = engine.clock()
        // Held, so that another node's environment of the same id, just committed, is seen.
        return try engine.write(announcing: .projects, holding: .projects) { connection in
            try connection.requireProject(project)
            guard try !connection.hasEnvironment(id, of: project) else { throw StoreError.environmentExists(project: project, id: id.rawValue) }
            let last = try connection.rows(
                "SELECT max(position) FROM environments WHERE project = ? AND position < ?",
                [.text(project), .integer(StoredEnvironment.productionPosition)]) { $0.optionalInt64(at: 0) }.first ?? nil
            let environment = StoredEnvironment(project: project, id: id, displayName: displayName, position: (last ?? 0) + 1, createTime: now)
            try connection.run(
                "INSERT INTO environments (\(StoreColumns.environment)) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(project), .text(id.rawValue), .text(displayName), .integer(environment.position), .integer(0),
                 .integer(TemplateStoreRules.milliseconds(now))])
            return environment
        }
    }

    package func updateEnvironment(project: String, id: EnvironmentID, displayName: String?, soakSeconds: Int64?) throws(StoreError)
        -> StoredEnvironment {
        if let soakSeconds, !(0...StoredEnvironment.maxSoakSeconds).contains(soakSeconds) {
            throw StoreError.invalidArgument("soakSeconds must be from 0 to \(StoredEnvironment.maxSoakSeconds), got \(soakSeconds)")
        }
        return try engine.write(announcing: .projects) { connection in
            let changed = try connection.run(
                """
                UPDATE environments SET display_name = coalesce(?, display_name), soak_seconds = coalesce(?, soak_seconds)
                WHERE project = ? AND id = ?
                """,
                [displayName.map(StoreValue.text) ?? .null, soakSeconds.map(StoreValue.integer) ?? .null, .text(project), .text(id.rawValue)])
            guard changed > 0, let environment = try connection.rows(
                "SELECT \(StoreColumns.environment) FROM environments WHERE project = ? AND id = ?", [.text(project), .text(id.rawValue)],
                { StoreColumns.decodeEnvironment($0) }).first ?? nil
            else { throw StoreError.environmentNotFound(project: project, id: id.rawValue) }
            return environment
        }
    }

    package func deleteEnvironment(project: String, id: EnvironmentID) throws(StoreError) {
        guard id != .production else {
            throw StoreError.environmentInUse(project: project, id: id.rawValue, reason: "every project keeps production")
        }
        try engine.write(announcing: .projects, holding: .projects) { connection in
            guard try connection.hasEnvironment(id, of: project) else {
                throw StoreError.environmentNotFound(project: project, id: id.rawValue)
            }
            let namespaces = TemplateNamespace.Kind.allCases.map { StoreValue.text(TemplateNamespace($0, in: id).rawValue) }
            let templates = try connection.rows(
                "SELECT count(*) FROM template_heads WHERE project = ? AND namespace IN (?, ?)", [.text(project)] + namespaces
            ) { $0.int64(at: 0) }.first ?? 0
            guard templates == 0 else {
                throw StoreError.environmentInUse(project: project, id: id.rawValue, reason: "it holds published templates")
            }
            let keys = try connection.rows(
                "SELECT count(*) FROM api_keys WHERE project = ? AND environment = ?", [.text(project), .text(id.rawValue)]
            ) { $0.int64(at: 0) }.first ?? 0
            guard keys == 0 else {
                throw StoreError.environmentInUse(project: project, id: id.rawValue, reason: "\(keys) API key(s) serve it: delete them first")
            }
            try connection.run("DELETE FROM environments WHERE project = ? AND id = ?", [.text(project), .text(id.rawValue)])
        }
    }
}

extension StoreStatements {
    /// Whether `project` has the environment `id`.
    func hasEnvironment(_ id: EnvironmentID, of project: String) throws -> Bool {
        try !rows("SELECT 1 FROM environments WHERE project = ? AND id = ?", [.text(project), .text(id.rawValue)]) { _ in true }.isEmpty
    }

    /// - Throws: `StoreError.environmentNotFound` unless `project` has the environment `id`.
    func requireEnvironment(_ id: EnvironmentID, of project: String) throws {
        guard try hasEnvironment(id, of: project) else { throw StoreError.environmentNotFound(project: project, id: id.rawValue) }
    }
}
