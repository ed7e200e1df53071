package import HTTP1

/// What a route asks beyond its role, the way a middleware wraps a route: it may change the
/// role a request needs (from what the request names: its query, its project and template),
/// and may refuse the request once the caller holds it (change control's rule on the routes
/// that change a template directly, for one).
package struct RouteRule: Sendable {
    /// The role the request to `uri` needs, given the one the declaration (or an earlier rule) asks.
    let role: @Sendable (_ uri: RequestURI, _ arguments: RouteArguments, _ asked: Role) -> Role
    /// Runs once the caller holds the role; throws to refuse the request.
    package let check: @Sendable (_ exchange: Exchange, _ arguments: RouteArguments) throws -> Void

    package init(role: @escaping @Sendable (RequestURI, RouteArguments, Role) -> Role = { $2 },
         check: @escaping @Sendable (Exchange, RouteArguments) throws -> Void = { _, _ in }) {
        self.role = role
        self.check = check
    }

    /// This rule, but for the requests `exempt` picks out by their address (a publish that
    /// only validates is no change).
    package func unless(_ exempt: @escaping @Sendable (RequestURI) -> Bool) -> RouteRule {
        RouteRule(role: { exempt($0) ? $2 : role($0, $1, $2) }, check: { if !exempt($0.uri) { try check($0, $1) } })
    }
}
