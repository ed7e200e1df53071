import HTTP1
import ServerCore

extension OpenAPIDocument {
    /// `GET /openapi.json`: this document, for anyone.
    static var routes: [RouteDeclaration] {
        [
            RouteDeclaration(.get, path: "/openapi.json", label: "openapi", access: .open, reads: .nothing) { exchange, _ in
                exchange.respond(.json(json))
            },
        ]
    }
}
