/// What a caller needs to be answered by a route.
package enum RouteAccess: Sendable {
    /// Anyone: health, the OpenAPI document, the console's files, signing in.
    case open
    /// A client API key of the project the path names (or admin credentials that may view
    /// it), unless the server is configured to need none: fetch and the stream.
    case clientKey
    /// A client API key, which names the project (OFREP's routes name none): the endpoint
    /// checks it, in its protocol's words.
    case keyNamingProject
    /// Any valid admin credentials, whatever roles they hold: `/v1/me`.
    case signedIn
    /// Admin credentials holding the role on the project the route names; on a route beyond
    /// one project, on at least one (the endpoint limits the call to those); `owner`, of the
    /// server. The route's rules may ask another role for a request.
    case role(Role)

    /// Whether the caller's admin credentials are looked up for the request.
    var needsAdmin: Bool {
        switch self {
        case .signedIn, .role: true
        case .open, .clientKey, .keyNamingProject: false
        }
    }
}
