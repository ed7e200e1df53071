public import ConfigCore

/// Identifies one versioned template: a project id and a namespace.
public struct TemplateKey: Hashable, Sendable, CustomStringConvertible {
    /// The project id.
    public var project: String
    /// Client or server template.
    public var namespace: TemplateNamespace

    /// - Parameters: see the properties.
    public init(project: String, namespace: TemplateNamespace) {
        self.project = project
        self.namespace = namespace
    }

    public var description: String { "\(project)/\(namespace.rawValue)" }
}
