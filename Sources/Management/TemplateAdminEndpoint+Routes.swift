import HTTP1
package import ServerCore

extension TemplateAdminEndpoint {
    /// The active template (Firebase's management API), read by viewers and published by
    /// publishers, or by editors where change control lets them (`directChanges`); a publish
    /// that only validates needs an editor.
    package func routes(directChanges: some DirectChangeRules) -> [RouteDeclaration] {
        let template = "/v1/projects/{project}/namespaces/{namespace}/remoteConfig"
        let publish = AuditRule(kind: .version, action: "template.publish") { exchange, action in
            guard !Self.isValidateOnly(exchange) else { return nil }
            return exchange.uri.parameter("canaryPercent") == nil ? action : "canary.start"
        }
        let validating = RouteRule(role: { uri, _, asked in Self.isValidateOnly(uri) ? .editor : asked })
        return [
            RouteDeclaration(.get, path: template, label: "remoteConfig", access: .role(.viewer), reads: .controlPlaneAndTemplate,
                             audit: .read("template.read")) { try get($0, project: $1.project, key: $1.key) },
            RouteDeclaration(.put, path: template, label: "remoteConfig", access: .role(.publisher), reads: .controlPlaneAndTemplate,
                             audit: publish, rules: [validating, directChanges.publishing.unless { Self.isValidateOnly($0) }]) {
                try self.publish($0, project: $1.project, key: $1.key, identity: $1.identity)
            },
            RouteDeclaration(.post, path: template + ":check", label: "remoteConfig:check", access: .role(.viewer),
                             reads: .controlPlane, audit: .read("template.read")) { try check($0, key: $1.key) },
            .fallback(path: template + ":{method}", label: "remoteConfig:unknown", access: .role(.viewer),
                      reads: .controlPlaneAndTemplate, audit: .read("template.read")) {
                "Unknown method 'remoteConfig:\($0.parameter("method"))'."
            },
        ].withFirebasePaths()
    }
}
