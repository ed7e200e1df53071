package import ConfigCore
package import ConfigStore

/// What a route's handler is given beyond the exchange (which holds the path's parameters),
/// once the request passed its checks: the project and template its path names, found; the
/// admin who called, holding the role.
///
/// The project, kind of template and identity are set for the routes that name or need them, and
/// nil on the others: implicitly unwrapped, so that a handler reads them as they are (lent to
/// the endpoint, not copied: the fetch reads its project on every request) and a handler that
/// reads one its route does not have traps, the bug it is.
package struct RouteArguments: Sendable {
    /// The project the route names (its path's `{project}`, or the query parameter it declares).
    package let project: StoredProject!
    /// The kind of template its path names or implies; its namespace is that kind in
    /// `environment`. (Not the namespace itself: copying an optional namespace, a kind and an
    /// environment's id, went through its type's metadata, on every fetch.)
    private let kind: TemplateNamespace.Kind?
    /// The environment its path names (`…/environments/{environment}/…`) or its client key
    /// serves; production when neither names one.
    package let environment: EnvironmentID
    /// The admin behind the request, on a route that needs admin credentials.
    package let identity: AccessControl.AdminIdentity!

    init(project: StoredProject?, kind: TemplateNamespace.Kind?, environment: EnvironmentID = .production,
         identity: AccessControl.AdminIdentity? = nil) {
        self.project = project
        self.kind = kind
        self.environment = environment
        self.identity = identity
    }

    /// The template of a route whose path names one.
    package var key: TemplateKey {
        TemplateKey(project: project.id, namespace: TemplateNamespace(kind!, in: environment))
    }
}
