import ConfigCore
import HTTP1
package import ServerCore

extension VersionAdminEndpoint {
    /// A template's versions: read by viewers; a rollback is a publisher's direct change.
    package func routes(directChanges: some DirectChangeRules) -> [RouteDeclaration] {
        let template = "/v1/projects/{project}/namespaces/{namespace}/remoteConfig"
        func read(_ method: HTTPMethod, _ name: String, handler: @escaping RouteDeclaration.Handler) -> RouteDeclaration {
            RouteDeclaration(method, path: "\(template):\(name)", label: "remoteConfig:\(name)", access: .role(.viewer),
                             reads: .controlPlaneAndTemplate, audit: .read("template.read"), handler: handler)
        }
        return [
            read(.get, "listVersions") { try list($0, key: $1.key) },
            RouteDeclaration(.post, path: template + ":rollback", label: "remoteConfig:rollback", access: .role(.publisher),
                             reads: .controlPlaneAndTemplate, audit: .version("template.rollback"), rules: [directChanges.rule]) {
                try rollback($0, project: $1.project, key: $1.key, identity: $1.identity)
            },
            read(.get, "diff") { try diff($0, project: $1.project, key: $1.key) },
            read(.get, "compare") { try compare($0, project: $1.project, key: $1.key) },
            read(.post, "diff") { try diffDraft($0, project: $1.project, key: $1.key) },
            read(.post, "evaluate") { try evaluate($0, project: $1.project, key: $1.key) },
            read(.get, "downloadDefaults") { try downloadDefaults($0, key: $1.key) },
        ].withFirebasePaths() + [serverTemplateRoute]
    }

    /// `…/namespaces/firebase-server/serverRemoteConfig`: the server template as the Admin SDKs
    /// read it.
    private var serverTemplateRoute: RouteDeclaration {
        var declaration = RouteDeclaration(
            .get, path: "/v1/projects/{project}/namespaces/firebase-server/serverRemoteConfig", label: "serverRemoteConfig",
            access: .role(.viewer), reads: .controlPlaneAndTemplate, audit: .read("template.read")
        ) { try serverTemplate($0, project: $1.project) }
        declaration.impliedNamespace = .server
        return declaration
    }
}
