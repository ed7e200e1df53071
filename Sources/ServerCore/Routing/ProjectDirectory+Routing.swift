import ConfigStore

extension ProjectDirectory {
    /// The project a path names by id or number; 404 when there is none.
    func resolve(_ idOrNumber: String) throws -> StoredProject {
        guard let project = project(idOrNumber) else {
            throw APIError.notFound("Project '\(idOrNumber)' not found.")
        }
        return project
    }
}
