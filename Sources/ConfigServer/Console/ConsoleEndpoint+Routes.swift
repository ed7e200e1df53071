import HTTP1
import ServerCore

extension ConsoleEndpoint {
    /// `GET|HEAD /console/{file}`: `/console/` is `index.html`, and `/console` redirects there
    /// (the page's relative links need the slash). Every answer carries the security fields.
    var routes: [RouteDeclaration] {
        [
            RouteDeclaration(.get, .head, path: "/console", label: "console", access: .open, reads: .nothing) { exchange, _ in
                try serve(exchange, file: nil)
            },
            RouteDeclaration(.get, .head, path: "/console/{file...}", label: "console", access: .open, reads: .nothing) { exchange, _ in
                try serve(exchange, file: exchange.parameter("file"))
            },
        ].map { declaration in
            var declaration = declaration
            declaration.dialect = .console
            return declaration
        }
    }
}
