package import EventLoop
import HTTP1

/// Every declared route of a worker, compiled once: a byte trie over their paths, and for each
/// path its routes by method. What no declaration answers, the table answers with routes of
/// its own: 404 for a path no route has (worded in the dialect of the routes under its first
/// segment), 405 for a method a path's routes do not answer, and the CORS preflight on a path
/// browsers call.
package final class RouteTable: Sendable {
    /// The declared routes, in the order declared.
    let routes: [Route]
    /// Tells the client API's requests from their first line.
    package let clientRequests: ClientRequestLine
    /// The error formats of the path prefixes whose routes word errors in a dialect of their
    /// own, for what the HTTP server answers before a route is known.
    package let errorFormats: [(prefix: String, format: ErrorBodyFormat)]
    private let trie: RouteTrie
    private let paths: [PathRoutes]
    private let notFound: Route
    private let notFoundByPrefix: [(prefix: String, route: Route)]

    /// The routes of one path (a class: a match reads it without copying it).
    private final class PathRoutes: Sendable {
        let declared: [Route]
        let fallback: Route?
        let methodNotAllowed: Route?
        let preflight: Route?

        init(declared: [Route], fallback: Route?) {
            self.declared = declared
            self.fallback = fallback
            let first = declared.first
            methodNotAllowed = first.map { RouteTable.methodNotAllowed(declared, label: $0.label) }
            preflight = first.flatMap { $0.declaration.isCalledByBrowsers ? RouteTable.preflight(like: $0) : nil }
        }

        func route(for method: HTTPMethod) -> Route {
            for route in declared where route.declaration.methods.contains(method) { return route }
            if let fallback { return fallback }
            if method == .options, let preflight { return preflight }
            guard let methodNotAllowed else { preconditionFailure("a path without routes") }
            return methodNotAllowed
        }
    }

    /// Compiles `declarations`: each method of a path is declared once, and the routes of a
    /// path agree on who calls them and how their errors are worded (else a bug: it traps).
    package init(_ declarations: [RouteDeclaration]) {
        var labels = Labels()
        routes = declarations.map { Route($0, label: labels[$0.label]) }
        trie = RouteTrie(declarations.map(\.path))
        var declared = [[Route]](repeating: [], count: trie.pathCount)
        var fallbacks = [Route?](repeating: nil, count: trie.pathCount)
        for (route, path) in zip(routes, trie.patternPaths) {
            if route.declaration.isFallback {
                precondition(fallbacks[path] == nil && declared[path].isEmpty, "\(route.declaration.path): a fallback beside routes")
                fallbacks[path] = route
            } else {
                precondition(fallbacks[path] == nil, "\(route.declaration.path): a fallback beside routes")
                Self.check(route, joining: declared[path])
                declared[path].append(route)
            }
        }
        paths = zip(declared, fallbacks).map { PathRoutes(declared: $0, fallback: $1) }
        let unknown = labels["unknown"]
        notFound = Self.notFound(.google, format: ErrorBody.format, label: unknown)
        let prefixes = Self.dialectsByFirstSegment(declarations)
        notFoundByPrefix = prefixes.map { ($0.prefix, Self.notFound($0.dialect, format: $0.format, label: unknown)) }
        errorFormats = prefixes.map { ($0.prefix, $0.format) }
        clientRequests = ClientRequestLine(declarations.filter(\.isClientRequest))
    }

    /// The route for a request to `path` (percent-decoded) with `method`: the declared one
    /// they match, or the table's own answer; and the values the path gave its parameters.
    func route(for path: String, method: HTTPMethod) -> (Route, RouteParameters) {
        var bytes = path
        return bytes.withUTF8 { bytes in
            var captures = RouteCaptures()
            guard let index = trie.match(bytes, captures: &captures) else {
                let route = notFoundByPrefix.first { path.hasPrefix($0.prefix) }?.route ?? notFound
                return (route, RouteParameters())
            }
            return (paths[index].route(for: method), RouteParameters(captures))
        }
    }

    private static func check(_ route: Route, joining others: [Route]) {
        let declaration = route.declaration
        for other in others.map(\.declaration) {
            precondition(Set(other.methods).isDisjoint(with: declaration.methods), "\(declaration.path): a method declared twice")
            precondition(other.isCalledByBrowsers == declaration.isCalledByBrowsers && other.dialect.name == declaration.dialect.name,
                         "\(declaration.path): routes of one path that browsers call differently, or word errors differently")
        }
    }

    /// 405 naming the methods the path's routes answer, in their dialect.
    private static func methodNotAllowed(_ routes: [Route], label: RouteLabel) -> Route {
        var methods: [HTTPMethod] = []
        for method in routes.flatMap(\.declaration.methods) where !methods.contains(method) { methods.append(method) }
        let allowed = methods
        return answering(like: routes[0], label: label) { _, _ in throw APIError.methodNotAllowed(allowed) }
    }

    /// The preflight `OPTIONS` of a path browsers call (the CORS fields are added to it as to
    /// every answer of the path).
    private static func preflight(like route: Route) -> Route {
        answering(like: route, label: route.label) { exchange, _ in exchange.respond(CORS.preflight()) }
    }

    /// A route of the table's own on `route`'s path, in its dialect and browser group, that
    /// anyone gets at once: it checks and reads nothing.
    private static func answering(like route: Route, label: RouteLabel, handler: @escaping RouteDeclaration.Handler) -> Route {
        let template = route.declaration
        var declaration = RouteDeclaration(path: template.path.description, label: label.name, access: .open, reads: .nothing,
                                           handler: handler)
        declaration.dialect = template.dialect
        declaration.isCalledByBrowsers = template.isCalledByBrowsers
        return Route(declaration, label: label, namingNothing: true)
    }

    /// 404 for a path no route has, worded as `format` words errors.
    private static func notFound(_ dialect: ErrorDialect, format: ErrorBodyFormat, label: RouteLabel) -> Route {
        var declaration = RouteDeclaration(path: "/", label: label.name, access: .open, reads: .nothing) { exchange, _ in
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: format.contentType)
            let body = format.encode(404, "No resource at \(exchange.uri.path).")
            exchange.respond(HTTPResponse(status: 404, headers: headers, body: body))
        }
        declaration.dialect = dialect
        return Route(declaration, label: label)
    }

    /// The first segments (as `/segment/` prefixes) whose routes all word errors in one
    /// dialect other than Google's (OFREP's, under `/ofrep/`).
    private static func dialectsByFirstSegment(_ declarations: [RouteDeclaration])
        -> [(prefix: String, dialect: ErrorDialect, format: ErrorBodyFormat)] {
        var order: [String] = []
        var dialects: [String: [ErrorDialect]] = [:]
        for declaration in declarations {
            guard case .literal(let first)? = declaration.path.segments.first?.head else { continue }
            if dialects[first] == nil { order.append(first) }
            dialects[first, default: []].append(declaration.dialect)
        }
        return order.compactMap { first in
            guard let all = dialects[first], let dialect = all.first, let format = dialect.format,
                  all.allSatisfy({ $0.name == dialect.name }) else { return nil }
            return ("/\(first)/", dialect, format)
        }
    }

    /// The metrics labels, numbered in the order first declared.
    private struct Labels {
        private var numbers: [String: Int] = [:]

        subscript(name: String) -> RouteLabel {
            mutating get {
                let index = numbers[name] ?? numbers.count
                numbers[name] = index
                return RouteLabel(index: index, name: name)
            }
        }
    }
}
