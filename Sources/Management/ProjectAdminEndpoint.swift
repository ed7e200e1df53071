import ConfigCore
package import ConfigStore
import EventLoop
import Foundation
import HTTP1
package import ServerCore

/// Projects and their client API keys, beyond the config file's declarations.
package struct ProjectAdminEndpoint: Sendable {
    let store: any ProjectStore
    let projects: ProjectDirectory
    let access: AccessControl
    let controlPlane: ControlPlane

    package init(store: any ProjectStore, projects: ProjectDirectory, access: AccessControl, controlPlane: ControlPlane) {
        self.store = store
        self.projects = projects
        self.access = access
        self.controlPlane = controlPlane
    }

    private struct ProjectJSON: Encodable {
        let projectId: String
        let projectNumber: String
        let displayName: String
    }

    /// `GET /v1/projects`: the projects `identity` holds a role on (every one for an owner).
    func list(_ exchange: Exchange, visibleTo identity: AccessControl.AdminIdentity) {
        let list = projects.all.filter { identity.role(on: $0.id) != nil }
            .map { ProjectJSON(projectId: $0.id, projectNumber: $0.number, displayName: $0.displayName) }
        exchange.respond(.json(Self.encode(["projects": list])))
    }

    /// `POST /v1/projects` `{"projectId", "projectNumber", "displayName"}`.
    func create(_ exchange: Exchange) throws {
        let body = try ManagementBody(exchange.request.body, fields: ["projectId", "projectNumber", "displayName", "percentSeed"])
        guard let id = try body.string("projectId"), let number = try body.string("projectNumber") else {
            throw APIError.badRequest("A project needs 'projectId' and 'projectNumber'.")
        }
        var declaration = ProjectDeclaration(id: id, number: number, displayName: try body.string("displayName"))
        declaration.percentSeed = try body.string("percentSeed")
        var probe = ServerConfiguration()
        probe.projects = [declaration]
        do { try probe.validate() } catch { throw APIError.badRequest("\(error)") }
        if let existing = projects.project(id) ?? projects.project(number), existing.id != id || existing.number != number {
            throw APIError(409, "Project id or number already in use by '\(existing.id)'.")
        }
        let project = StoredProject(id: id, number: number, displayName: declaration.displayName ?? id,
                                    percentSeed: declaration.percentSeed ?? "")
        exchange.answerFromStore(project: project) { [self] in
            // projectNumberTaken: another worker or node took the number since the check above.
            try store.upsert(project)
            try controlPlane.committed(.projects)
            return .json(Self.encode(ProjectJSON(projectId: id, projectNumber: number, displayName: project.displayName)))
        }
    }

    /// `POST /v1/projects/{p}/apiKeys` `{"name": "ios-app", "environment": "staging"}` → a new
    /// client API key, shown once, serving the environment named (production unless named).
    func createAPIKey(_ exchange: Exchange, project: StoredProject) throws {
        let body = try ManagementBody(exchange.request.body, fields: ["name", "environment"])
        let name = try body.string("name") ?? "client"
        let environment = try body.string("environment").map { named in
            guard let id = EnvironmentID(rawValue: named),
                  id == .production || projects.environments(of: project.id).contains(where: { $0.id == id }) else {
                throw APIError.badRequest("Project '\(project.id)' has no environment '\(named)' (GET …/environments lists them).")
            }
            return id
        } ?? .production
        let key = "rcs_" + RandomSecret.hex(bytes: 24)
        let digest = SecretDigest(secret: key)
        exchange.answerFromStore { [self] in
            try store.addAPIKey(project: project.id, keyHash: digest.hex, name: name, environment: environment)
            try controlPlane.committed(.projects)
            return .json(Self.encode(["name": name, "key": key, "project": project.id, "id": ClientKeyID.of(digest.hex),
                                      "environment": environment.rawValue]))
        }
    }

    private struct KeyJSON: Encodable {
        let id: String
        let name: String
        let createTime: Timestamp
        let environment: String
    }

    /// `GET /v1/projects/{p}/apiKeys`: the keys made through the API (those of the config file
    /// are in the file), by id and name; never a key.
    func listAPIKeys(_ exchange: Exchange, project: StoredProject) throws {
        exchange.answerFromStore { [self] in
            let keys = try store.apiKeys(project: project.id).map {
                KeyJSON(id: ClientKeyID.of($0.keyHash), name: $0.name, createTime: Timestamp($0.createTime),
                        environment: $0.environment.rawValue)
            }
            return .json(Self.encode(["apiKeys": keys]))
        }
    }

    /// `DELETE /v1/projects/{p}/apiKeys/{id}`: every worker and node refuses the key once this
    /// is answered.
    func revokeAPIKey(_ exchange: Exchange, project: StoredProject, id: String) throws {
        guard id.count == 12 else { throw APIError.notFound("No API key '\(id)' in project '\(project.id)'.") }
        exchange.answerFromStore { [self] in
            guard let key = try store.apiKeys(project: project.id).first(where: { ClientKeyID.of($0.keyHash) == id }),
                  try store.removeAPIKey(project: project.id, keyHash: key.keyHash) else {
                throw APIError.notFound("No API key '\(id)' in project '\(project.id)'.")
            }
            try controlPlane.committed(.projects)
            return HTTPResponse(status: 204)
        }
    }

    private static func encode(_ value: some Encodable) -> [UInt8] {
        Array(TemplateJSON.encode(value))
    }
}
