import HTTP1
package import ServerCore

extension ProjectAdminEndpoint {
    /// Projects (listing shows each caller the projects it holds a role on; only an owner
    /// makes one) and their client API keys (the project's admins).
    package var routes: [RouteDeclaration] {
        let keys = "/v1/projects/{project}/apiKeys"
        var create = AuditRule.change("project.create")
        create.project = .answerMember("projectId")
        return [
            RouteDeclaration(.get, path: "/v1/projects", label: "projects", access: .role(.viewer), reads: .controlPlane,
                             audit: .read("project.list")) { list($0, visibleTo: $1.identity) },
            RouteDeclaration(.post, path: "/v1/projects", label: "projects", access: .role(.owner), reads: .controlPlane,
                             audit: create) { exchange, _ in try self.create(exchange) },
            RouteDeclaration(.get, path: keys, label: "apiKeys", access: .role(.admin), reads: .controlPlane,
                             audit: .read("apiKey.list")) { try listAPIKeys($0, project: $1.project) },
            RouteDeclaration(.post, path: keys, label: "apiKeys", access: .role(.admin), reads: .controlPlane,
                             audit: .change("apiKey.create", target: .requestMember("name"))) { try createAPIKey($0, project: $1.project) },
            RouteDeclaration(.delete, path: keys + "/{key}", label: "apiKeys", access: .role(.admin), reads: .controlPlane,
                             audit: .change("apiKey.revoke", target: .parameters(["key"]))) {
                try revokeAPIKey($0, project: $1.project, id: $0.parameter("key"))
            },
        ]
    }
}
