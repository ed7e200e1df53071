import ConfigCore

extension TemplateNamespace.Kind {
    /// The kind of template a path's `{namespace}` names; 404 for any other.
    static func named(_ name: String) throws -> TemplateNamespace.Kind {
        guard let known = TemplateNamespace.Kind(rawValue: name) else {
            throw APIError.notFound("Namespace '\(name)' not found; use 'firebase' or 'firebase-server'.")
        }
        return known
    }
}

extension TemplateNamespace {
    /// Where the management API names this template below its project's path:
    /// `namespaces/firebase`, or `environments/staging/namespaces/firebase`.
    package var path: String {
        environment == .production ? "namespaces/\(kind.rawValue)" : "environments/\(environment.rawValue)/namespaces/\(kind.rawValue)"
    }
}
