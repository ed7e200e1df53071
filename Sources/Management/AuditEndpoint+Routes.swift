import HTTP1
package import ServerCore

extension AuditEndpoint {
    /// The log: an owner reads every entry; a project's admin the project's (`?project=`).
    package var routes: [RouteDeclaration] {
        var declaration = RouteDeclaration(
            .get, path: "/v1/auditLog", label: "auditLog", access: .role(.admin), reads: .controlPlane,
            audit: .read("audit.list"),
            rules: [RouteRule(role: { _, arguments, asked in arguments.project == nil ? .owner : asked })]
        ) { try answer($0, project: $1.project) }
        declaration.projectQueryParameter = "project"
        return [declaration]
    }
}
