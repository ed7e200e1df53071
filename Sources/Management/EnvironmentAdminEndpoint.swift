import ConfigCore
package import ConfigStore
import Foundation
import HTTP1
package import ServerCore

/// A project's environments (docs/environments.md): listed in the order a change moves through
/// them, added before production, renamed, given a soak rule, and deleted while empty.
package struct EnvironmentAdminEndpoint: Sendable {
    let store: any ProjectStore
    let projects: ProjectDirectory
    let controlPlane: ControlPlane

    package init(store: any ProjectStore, projects: ProjectDirectory, controlPlane: ControlPlane) {
        self.store = store
        self.projects = projects
        self.controlPlane = controlPlane
    }

    struct EnvironmentJSON: Encodable {
        let id: String
        let displayName: String
        let soakSeconds: Int64
        let createTime: Timestamp

        init(_ stored: StoredEnvironment) {
            id = stored.id.rawValue
            displayName = stored.displayName
            soakSeconds = stored.soakSeconds
            createTime = Timestamp(stored.createTime)
        }
    }

    /// `GET /v1/projects/{p}/environments`, in order, production last.
    func list(_ exchange: Exchange, project: StoredProject) {
        let environments = projects.environments(of: project.id).map(EnvironmentJSON.init)
        exchange.respond(.json(Self.encode(["environments": environments])))
    }

    /// `POST /v1/projects/{p}/environments` `{"id": "staging", "displayName": "Staging"}`.
    func create(_ exchange: Exchange, project: StoredProject) throws {
        let body = try ManagementBody(exchange.request.body, fields: ["id", "displayName"])
        guard let named = try body.string("id") else { throw APIError.badRequest("An environment needs an 'id' (e.g. \"staging\").") }
        guard let id = EnvironmentID(rawValue: named) else {
            throw APIError.badRequest("'\(named)' is not an environment id: \(EnvironmentID.problem(with: named) ?? "")." )
        }
        let displayName = try Self.displayName(body) ?? named.prefix(1).uppercased() + named.dropFirst()
        exchange.answerFromStore(project: project) { [self] in
            let created = try store.createEnvironment(project: project.id, id: id, displayName: displayName)
            try controlPlane.committed(.projects)
            return .json(Self.encode(EnvironmentJSON(created)))
        }
    }

    /// `PATCH /v1/projects/{p}/environments/{e}` `{"displayName"?, "soakSeconds"?}`.
    func update(_ exchange: Exchange, project: StoredProject, environment: EnvironmentID) throws {
        let body = try ManagementBody(exchange.request.body, fields: ["displayName", "soakSeconds"])
        let displayName = try Self.displayName(body)
        let soak = try body.integer("soakSeconds")
        if let soak, !(0...StoredEnvironment.maxSoakSeconds).contains(soak) {
            throw APIError.badRequest("soakSeconds must be from 0 to \(StoredEnvironment.maxSoakSeconds) (90 days), got \(soak).")
        }
        exchange.answerFromStore(project: project) { [self] in
            let updated = try store.updateEnvironment(project: project.id, id: environment, displayName: displayName, soakSeconds: soak)
            try controlPlane.committed(.projects)
            return .json(Self.encode(EnvironmentJSON(updated)))
        }
    }

    /// `DELETE /v1/projects/{p}/environments/{e}`: only one with no template and no API key.
    func delete(_ exchange: Exchange, project: StoredProject, environment: EnvironmentID) {
        exchange.answerFromStore(project: project) { [self] in
            try store.deleteEnvironment(project: project.id, id: environment)
            try controlPlane.committed(.projects)
            return HTTPResponse(status: 204)
        }
    }

    private static func displayName(_ body: ManagementBody) throws -> String? {
        guard let name = try body.string("displayName") else { return nil }
        guard (1...100).contains(name.count) else { throw APIError.badRequest("displayName must have 1 to 100 characters.") }
        return name
    }

    private static func encode(_ value: some Encodable) -> [UInt8] {
        Array(TemplateJSON.encode(value))
    }
}

extension EnvironmentAdminEndpoint {
    /// Listing (viewers) and changing (admins) a project's environments.
    package var routes: [RouteDeclaration] {
        let environments = "/v1/projects/{project}/environments"
        let one = environments + "/{environment}"
        return [
            RouteDeclaration(.get, path: environments, label: "environments", access: .role(.viewer), reads: .controlPlane,
                             audit: .read("environment.list")) { list($0, project: $1.project) },
            RouteDeclaration(.post, path: environments, label: "environments", access: .role(.admin), reads: .controlPlane,
                             audit: .change("environment.create", target: .requestMember("id"))) { try create($0, project: $1.project) },
            RouteDeclaration(.patch, path: one, label: "environments", access: .role(.admin), reads: .controlPlane,
                             audit: .change("environment.update", target: .parameters(["environment"]))) {
                try update($0, project: $1.project, environment: $1.environment)
            },
            RouteDeclaration(.delete, path: one, label: "environments", access: .role(.admin), reads: .controlPlane,
                             audit: .change("environment.delete", target: .parameters(["environment"]))) {
                delete($0, project: $1.project, environment: $1.environment)
            },
        ]
    }
}
