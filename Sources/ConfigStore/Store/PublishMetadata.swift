/// What a publisher says about a new version; the store adds the number and the time.
public struct PublishMetadata: Sendable, Equatable {
    /// Who publishes (an email address), if known.
    public var updateUser: String?
    /// Free text; `rollback` fills in "Rollback to version N" when nil.
    public var description: String?
    /// `REST_API`, `CONSOLE`, `ADMIN_SDK_NODE`, ...
    public var updateOrigin: String
    /// `INCREMENTAL_UPDATE` or `FORCED_UPDATE` for `publish`; ignored by `rollback`, which
    /// always records `ROLLBACK`.
    public var updateType: String

    /// - Parameters: see the properties.
    public init(
        updateUser: String? = nil,
        description: String? = nil,
        updateOrigin: String = "REST_API",
        updateType: String = TemplateUpdateType.incrementalUpdate
    ) {
        self.updateUser = updateUser
        self.description = description
        self.updateOrigin = updateOrigin
        self.updateType = updateType
    }
}

/// The `updateType` values the store records.
public enum TemplateUpdateType {
    /// A normal publish with a matching `If-Match`.
    public static let incrementalUpdate = "INCREMENTAL_UPDATE"
    /// A publish with `If-Match: *`.
    public static let forcedUpdate = "FORCED_UPDATE"
    /// A new version copied from an older one.
    public static let rollback = "ROLLBACK"
}

/// The template namespaces the store accepts.
public enum StoredNamespace {
    /// Client templates.
    public static let client = "firebase"
    /// Server templates.
    public static let server = "firebase-server"
    /// Every accepted namespace.
    public static let all = [client, server]
}
