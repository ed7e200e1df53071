import HTTP1
package import ServerCore

extension SignInEndpoint {
    /// Signing in to the console (docs/access.md, "Sign-in"), and the live sessions. The sign-in
    /// steps keep their own audit entries: only they know who signed in.
    package var routes: [RouteDeclaration] {
        [
            RouteDeclaration(.get, path: "/auth/session", label: "auth:session", access: .open, reads: .controlPlane) { exchange, _ in
                describe(exchange)
            },
            RouteDeclaration(.post, path: "/auth/signOut", label: "auth:signOut", access: .open, reads: .controlPlane) { exchange, _ in
                try signOut(exchange)
            },
            RouteDeclaration(.get, path: "/auth/oidc/login", label: "auth:login", access: .open, reads: .controlPlane) { exchange, _ in
                login(exchange, try requireProvider())
            },
            RouteDeclaration(.get, path: "/auth/oidc/callback", label: "auth:callback", access: .open,
                             reads: .controlPlane) { exchange, _ in try callback(exchange, try requireProvider()) },
            // An owner lists and ends anyone's sessions (someone who left the team keeps no
            // roles their ID token gave); anyone else, their own (checked by the endpoint).
            RouteDeclaration(.get, path: "/v1/sessions", label: "sessions", access: .role(.viewer), reads: .controlPlane,
                             audit: .read("session.list")) { listSessions($0, visibleTo: $1.identity) },
            RouteDeclaration(.delete, path: "/v1/sessions/{session}", label: "sessions", access: .role(.viewer), reads: .controlPlane,
                             audit: .change("session.end", target: .parameters(["session"]))) {
                endSession($0, id: $0.parameter("session"), by: $1.identity)
            },
        ]
    }
}
