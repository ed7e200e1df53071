import ConfigStore
import EventLoop
import Foundation
import HTTP1

/// Projects and their client API keys, beyond the config file's declarations.
struct ProjectAdminEndpoint: Sendable {
    let store: any TemplateStore
    let projects: ProjectDirectory
    let access: AccessControl
    let counters: ChangeCounters
    let maxBodyBytes: Int

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
        let body = try ClientRequest.parseBody(exchange.request.body, limit: maxBodyBytes)
        guard let id = body.string("projectId"), let number = body.string("projectNumber") else {
            throw APIError.badRequest("A project needs 'projectId' and 'projectNumber'.")
        }
        var declaration = ProjectDeclaration(id: id, number: number, displayName: body.string("displayName"))
        declaration.percentSeed = body.string("percentSeed")
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
            try store.upsertProject(project)
            counters.bumpProjects()
            projects.add(project)
            return .json(Self.encode(ProjectJSON(projectId: id, projectNumber: number, displayName: project.displayName)))
        }
    }

    /// `POST /v1/projects/{p}/apiKeys` `{"name": "ios-app"}` → a new client API key, shown once.
    func createAPIKey(_ exchange: Exchange, project: StoredProject) throws {
        let body = try ClientRequest.parseBody(exchange.request.body, limit: maxBodyBytes)
        let name = body.string("name") ?? "client"
        let key = "rcs_" + RandomSecret.hex(bytes: 24)
        let digest = SecretDigest(secret: key)
        exchange.answerFromStore { [self] in
            try store.addAPIKey(project: project.id, keyHash: digest.hex, name: name)
            counters.bumpProjects()
            access.addAPIKeyDigest(digest, project: project.id)
            return .json(Self.encode(["name": name, "key": key, "project": project.id]))
        }
    }

    private static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
    }
}
