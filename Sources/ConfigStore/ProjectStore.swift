/// Projects and their client API key hashes: `ConfigDatabase.projects`. Every worker keeps them
/// in memory, so every write is announced (`StoreChange.projects`).
public protocol ProjectStore: Sendable {
    /// Creates the project, or updates the number, name and seed of the one with this id.
    /// - Throws: `invalidArgument` for an id or number `ProjectIdentity` refuses,
    ///   `projectNumberTaken` when another project has the number.
    func upsert(_ project: StoredProject) throws(StoreError)

    /// Every project, by id (byte order).
    func all() throws(StoreError) -> [StoredProject]

    /// Records an API key hash for `project` (re-adding renames it).
    /// - Throws: `projectNotFound`.
    func addAPIKey(project: String, keyHash: String, name: String) throws(StoreError)

    /// Forgets an API key hash; whether it was recorded.
    @discardableResult
    func removeAPIKey(project: String, keyHash: String) throws(StoreError) -> Bool

    /// The API keys (hashes and names) of `project`, oldest first.
    func apiKeys(project: String) throws(StoreError) -> [StoredAPIKey]

    /// The API keys of every project, by project id, each project's oldest first: one query,
    /// for a worker that reads them all again.
    func allAPIKeys() throws(StoreError) -> [String: [StoredAPIKey]]
}
