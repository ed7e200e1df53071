import HTTP1

extension MetricsEndpoint {
    var routes: [RouteDeclaration] {
        [
            RouteDeclaration(.get, path: "/metrics", label: "metrics", access: .role(.owner), reads: .controlPlane,
                             audit: .read("metrics.read")) { exchange, _ in answer(exchange) },
        ]
    }
}
