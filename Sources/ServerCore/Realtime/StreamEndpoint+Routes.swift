import HTTP1

extension StreamEndpoint {
    /// The SDKs' real-time stream (spec §4): its errors are Google's wrapped in an array (§1.4).
    package var routes: [RouteDeclaration] {
        [
            RouteDeclaration(.post, path: "/v1/projects/{project}/namespaces/{namespace}:streamFetchInvalidations",
                             label: "streamFetchInvalidations", access: .clientKey, reads: .dataPlaneAndTemplate) {
                try open($0, key: $1.key)
            }.forClients(dialect: .googleStream),
        ]
    }
}
