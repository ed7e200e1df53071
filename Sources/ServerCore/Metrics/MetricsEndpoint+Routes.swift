import HTTP1

extension MetricsEndpoint {
    package var routes: [RouteDeclaration] {
        [
            RouteDeclaration(.get, path: "/metrics", label: "metrics", access: .role(.owner), reads: .controlPlane,
                             audit: .read("metrics.read")) { exchange, _ in answer(exchange) },
        ]
    }
}
