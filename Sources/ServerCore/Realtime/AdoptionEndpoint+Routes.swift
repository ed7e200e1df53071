import HTTP1

extension AdoptionEndpoint {
    package var routes: [RouteDeclaration] {
        [
            RouteDeclaration(.get, path: "/v1/projects/{project}/namespaces/{namespace}/remoteConfig:adoption",
                             label: "remoteConfig:adoption", access: .role(.viewer), reads: .controlPlaneAndTemplate,
                             audit: .read("template.read")) { answer($0, key: $1.key) },
        ].withFirebasePaths()
    }
}
