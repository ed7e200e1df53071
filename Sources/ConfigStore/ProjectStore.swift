public import ConfigCore

/// Projects and their client API key hashes: `ConfigDatabase.projects`. Every worker keeps them
/// in memory, so every write is announced (`StoreChange.projects`).
public protocol ProjectStore: Sendable {
    /// Creates the project, or updates the number, name and seed of the one with this id.
    /// - Throws: `invalidArgument` for an id or number `ProjectIdentity` refuses,
    ///   `projectNumberTaken` when another project has the number.
    func upsert(_ project: StoredProject) throws(StoreError)

    /// Every project, by id (byte order).
    func all() throws(StoreError) -> [StoredProject]

    /// Records an API key hash for `project`, served `environment`'s templates (re-adding renames it
    /// and moves it there).
    /// - Throws: `projectNotFound`, `environmentNotFound`.
    func addAPIKey(project: String, keyHash: String, name: String, environment: EnvironmentID) throws(StoreError)

    /// Forgets an API key hash; whether it was recorded.
    @discardableResult
    func removeAPIKey(project: String, keyHash: String) throws(StoreError) -> Bool

    /// The API keys (hashes and names) of `project`, oldest first.
    func apiKeys(project: String) throws(StoreError) -> [StoredAPIKey]

    /// The API keys of every project, by project id, each project's oldest first: one query,
    /// for a worker that reads them all again.
    func allAPIKeys() throws(StoreError) -> [String: [StoredAPIKey]]

    /// Every project's environments, production included, by project id, each project's in
    /// order: one query, for a worker that reads them all again.
    func allEnvironments() throws(StoreError) -> [String: [StoredEnvironment]]

    /// Adds an environment to `project`, after its others and before production.
    /// - Throws: `projectNotFound`, `environmentExists`, `invalidArgument` for production.
    func createEnvironment(project: String, id: EnvironmentID, displayName: String) throws(StoreError) -> StoredEnvironment

    /// Renames an environment or changes its soak rule (a nil leaves it).
    /// - Throws: `environmentNotFound`, `invalidArgument` for a soak out of range.
    func updateEnvironment(project: String, id: EnvironmentID, displayName: String?, soakSeconds: Int64?) throws(StoreError)
        -> StoredEnvironment

    /// Deletes an environment that holds no template and no API key.
    /// - Throws: `environmentNotFound`, `environmentInUse` (production, or one in use).
    func deleteEnvironment(project: String, id: EnvironmentID) throws(StoreError)
}
