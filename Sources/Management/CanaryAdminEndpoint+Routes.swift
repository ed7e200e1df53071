import HTTP1
package import ServerCore

extension CanaryAdminEndpoint {
    /// A canary's status (viewers) and its steps, each a publisher's direct change.
    package func routes(directChanges: some DirectChangeRules) -> [RouteDeclaration] {
        let template = "/v1/projects/{project}/namespaces/{namespace}/remoteConfig"
        func step(_ name: String, audit: AuditRule, handler: @escaping RouteDeclaration.Handler) -> RouteDeclaration {
            RouteDeclaration(.post, path: "\(template):\(name)", label: "remoteConfig:\(name)", access: .role(.publisher),
                             reads: .controlPlaneAndTemplate, audit: audit, rules: [directChanges.rule], handler: handler)
        }
        return [
            RouteDeclaration(.get, path: template + ":canary", label: "remoteConfig:canary", access: .role(.viewer),
                             reads: .controlPlaneAndTemplate, audit: .read("template.read")) {
                try status($0, project: $1.project, key: $1.key)
            },
            step("canary", audit: .change("canary.share")) { try grow($0, project: $1.project, key: $1.key, identity: $1.identity) },
            step("promote", audit: .version("canary.promote")) {
                try end($0, project: $1.project, key: $1.key, identity: $1.identity, promote: true)
            },
            step("abort", audit: .version("canary.abort")) {
                try end($0, project: $1.project, key: $1.key, identity: $1.identity, promote: false)
            },
        ].withFirebasePaths()
    }
}
