/// Identifies one versioned template: a project ID and a namespace.
public struct HeadKey: Hashable, Sendable {
    /// The project ID.
    public var project: String
    /// `firebase` or `firebase-server`.
    public var namespace: String

    /// - Parameters: see the properties.
    public init(project: String, namespace: String) {
        self.project = project
        self.namespace = namespace
    }
}
