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
