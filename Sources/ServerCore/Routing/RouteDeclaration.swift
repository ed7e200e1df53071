package import ConfigCore
package import HTTP1

/// One route, declared once by the feature that answers it: what it matches, what its caller
/// needs, how the metrics, the audit log, read-your-writes, its errors and browsers treat it,
/// and the handler that answers it. Each feature lists its own (`FetchEndpoint.routes`,
/// `WebhookAdminEndpoint.routes`, …); `RouteTable` compiles them all into one matcher, and
/// every part of the server that treats routes differently reads the declaration.
package struct RouteDeclaration: Sendable {
    /// Answers a request that passed the route's checks.
    package typealias Handler = @Sendable (Exchange, RouteArguments) throws -> Void

    /// The methods it answers (none for a fallback, which answers any).
    let methods: [HTTPMethod]
    fileprivate(set) var path: RoutePattern
    /// The `route` label of its requests in the metrics.
    let label: String
    var access: RouteAccess
    /// What it asks beyond its role (change control's, a validate-only publish's), in order.
    var rules: [RouteRule] = []
    /// How the audit log names the call; nil for a call the log does not keep.
    var audit: AuditRule?
    var reads: RouteReads
    /// The namespace its path implies when it names none: Firebase's own paths
    /// (`/v1/projects/{project}/remoteConfig`) are the client template's.
    package var impliedNamespace: TemplateNamespace?
    /// The query parameter that names the project its role is checked on, for a route whose
    /// path names none (`/v1/auditLog?project=`).
    package var projectQueryParameter: String?
    package var dialect = ErrorDialect.google
    /// Browsers call it cross-origin (the web SDKs, OFREP's web providers): every answer
    /// carries the CORS fields, `OPTIONS` is answered as a preflight, and it is never audited
    /// (no audit call on the client API's hot path).
    var isCalledByBrowsers = false
    /// SDK traffic (fetches, streams, evaluations): a new connection's request waits its turn
    /// behind those read at once, so that a flood of them never holds up a publish.
    var isClientRequest = false
    /// Answers, whatever the method, a custom method or step its resource does not have, with
    /// a 404 that names those it has: not an operation of the API.
    var isFallback = false
    let handler: Handler

    package init(_ methods: HTTPMethod..., path: String, label: String, access: RouteAccess, reads: RouteReads,
         audit: AuditRule? = nil, rules: [RouteRule] = [], handler: @escaping Handler) {
        self.methods = methods
        self.path = RoutePattern(path)
        self.label = label
        self.access = access
        self.reads = reads
        self.audit = audit
        self.rules = rules
        self.handler = handler
    }

    /// A fallback for the custom methods or steps `path` (ending in a parameter after a colon,
    /// or in an id) does not have: a 404 with `message`, once the caller passed the checks
    /// the resource's own routes ask.
    package static func fallback(path: String, label: String, access: RouteAccess, reads: RouteReads, audit: AuditRule?,
                         message: @escaping @Sendable (Exchange) -> String) -> RouteDeclaration {
        var declaration = RouteDeclaration(path: path, label: label, access: access, reads: reads, audit: audit) { exchange, _ in
            throw APIError.notFound(message(exchange))
        }
        declaration.isFallback = true
        return declaration
    }

    /// A client SDK's route: called by browsers, SDK traffic, in `dialect`.
    package func forClients(dialect: ErrorDialect) -> RouteDeclaration {
        var declaration = self
        declaration.isCalledByBrowsers = true
        declaration.isClientRequest = true
        declaration.dialect = dialect
        return declaration
    }
}

extension [RouteDeclaration] {
    /// The template routes (`/v1/projects/{project}/namespaces/{namespace}/…`) also under
    /// Firebase's own paths, which name no namespace and mean the client template's.
    package func withFirebasePaths() -> [RouteDeclaration] {
        let namespaced = "/v1/projects/{project}/namespaces/{namespace}/"
        return flatMap { declaration -> [RouteDeclaration] in
            let path = declaration.path.description
            guard path.hasPrefix(namespaced) else { return [declaration] }
            var firebase = declaration
            firebase.path = RoutePattern("/v1/projects/{project}/" + path.dropFirst(namespaced.count))
            firebase.impliedNamespace = .client
            return [firebase, declaration]
        }
    }

    /// Every template route also under `…/environments/{environment}/`, for that environment's
    /// template (docs/environments.md): `/v1/projects/{project}/environments/{environment}/namespaces/…`
    /// and Firebase's paths (`…/environments/{environment}/remoteConfig`). The client API's routes
    /// are not: a client's key chooses its environment. `scripts/openapi-json` documents the same
    /// paths by the same rule.
    package func withEnvironmentPaths() -> [RouteDeclaration] {
        let project = "/v1/projects/{project}/", namespaces = project + "namespaces/"
        return flatMap { declaration -> [RouteDeclaration] in
            let path = declaration.path.description
            let belowANamespace = path.hasPrefix(namespaces) && path.dropFirst(namespaces.count).contains("/")
            guard belowANamespace || declaration.impliedNamespace != nil else { return [declaration] }
            var environmental = declaration
            environmental.path = RoutePattern(project + "environments/{environment}/" + path.dropFirst(project.count))
            return [declaration, environmental]
        }
    }
}
