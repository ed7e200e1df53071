import HTTP1
package import ServerCore

extension AccessAdminEndpoint {
    /// Who the caller is, principals, tokens and memberships. A project's admin lists
    /// principals, adds service accounts, and makes and revokes tokens limited to the projects
    /// it administers (the endpoint limits them); an owner, any.
    package var routes: [RouteDeclaration] {
        let members = "/v1/projects/{project}/members"
        func admin(_ method: HTTPMethod, _ path: String, label: String, audit: AuditRule,
                   handler: @escaping RouteDeclaration.Handler) -> RouteDeclaration {
            RouteDeclaration(method, path: path, label: label, access: .role(.admin), reads: .controlPlane, audit: audit, handler: handler)
        }
        return [
            // Any valid credentials, even without a role: they are asked about themselves.
            RouteDeclaration(.get, path: "/v1/me", label: "me", access: .signedIn, reads: .controlPlane) { describe($0, $1.identity) },
            admin(.get, "/v1/principals", label: "principals", audit: .read("principal.list")) { exchange, _ in
                try listPrincipals(exchange)
            },
            admin(.post, "/v1/principals", label: "principals", audit: .change("principal.create", target: .answerMember("id"))) {
                try createPrincipal($0, by: $1.identity)
            },
            admin(.get, "/v1/tokens", label: "tokens", audit: .read("token.list")) { try listTokens($0, visibleTo: $1.identity) },
            admin(.post, "/v1/tokens", label: "tokens", audit: .change("token.create", target: .answerMember("id"))) {
                try createToken($0, by: $1.identity)
            },
            admin(.delete, "/v1/tokens/{token}", label: "tokens", audit: .change("token.revoke", target: .parameters(["token"]))) {
                try revokeToken($0, id: $0.parameter("token"), by: $1.identity)
            },
            admin(.get, members, label: "members", audit: .read("member.list")) { try listMembers($0, project: $1.project) },
            admin(.put, members + "/{principal}", label: "members", audit: .change("member.set", target: .parameters(["principal"]))) {
                try setMember($0, project: $1.project, principal: $0.parameter("principal"))
            },
            admin(.delete, members + "/{principal}", label: "members",
                  audit: .change("member.remove", target: .parameters(["principal"]))) {
                try setMember($0, project: $1.project, principal: $0.parameter("principal"))
            },
        ]
    }
}
