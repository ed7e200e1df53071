import HTTP1

extension HealthEndpoint {
    /// For load balancers and orchestrators: anyone, at once (they read nothing that waits).
    package var routes: [RouteDeclaration] {
        [
            RouteDeclaration(.get, .head, path: "/healthz", label: "healthz", access: .open, reads: .nothing) { exchange, _ in
                live(exchange)
            },
            RouteDeclaration(.get, .head, path: "/readyz", label: "readyz", access: .open, reads: .nothing) { exchange, _ in
                try ready(exchange)
            },
        ]
    }
}
