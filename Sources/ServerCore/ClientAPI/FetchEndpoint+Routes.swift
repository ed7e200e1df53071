import HTTP1

extension FetchEndpoint {
    /// The SDKs' fetch (spec §3), called cross-origin by the web SDK.
    package var routes: [RouteDeclaration] {
        [
            RouteDeclaration(.post, path: "/v1/projects/{project}/namespaces/{namespace}:fetch", label: "fetch", access: .clientKey,
                             reads: .dataPlane) { try answer($0, project: $1.project, key: $1.key) }
                .forClients(dialect: .google),
        ]
    }
}
