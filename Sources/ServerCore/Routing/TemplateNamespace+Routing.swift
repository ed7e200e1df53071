import ConfigCore

extension TemplateNamespace {
    /// The namespace a path names; 404 for any other.
    static func named(_ name: String) throws -> TemplateNamespace {
        guard let known = TemplateNamespace(rawValue: name) else {
            throw APIError.notFound("Namespace '\(name)' not found; use 'firebase' or 'firebase-server'.")
        }
        return known
    }
}
