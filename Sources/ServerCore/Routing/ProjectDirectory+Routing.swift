import ConfigCore
import ConfigStore

extension ProjectDirectory {
    /// The project a path names by id or number; 404 when there is none.
    func resolve(_ idOrNumber: String) throws -> StoredProject {
        guard let project = project(idOrNumber) else {
            throw APIError.notFound("Project '\(idOrNumber)' not found.")
        }
        return project
    }

    /// The environment of `project` a path names; 404 when the project has none so named.
    func environment(_ name: String, of project: StoredProject?) throws -> EnvironmentID {
        guard let project else { preconditionFailure("an environment is named on a route that names a project") }
        guard let id = EnvironmentID(rawValue: name), id == .production || environments(of: project.id).contains(where: { $0.id == id }) else {
            throw APIError.notFound("Environment '\(name)' of project '\(project.id)' not found.")
        }
        return id
    }
}
