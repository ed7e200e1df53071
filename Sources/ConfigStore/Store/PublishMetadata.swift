public import ConfigCore

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
    public var updateType: UpdateType
    /// The change request this version applies, marked applied in the same transaction.
    public var completes: ChangeRequestCompletion?
    /// The environment and version a promotion copies.
    public var promotedFrom: PromotionSource?

    /// - Parameters: see the properties.
    public init(
        updateUser: String? = nil,
        description: String? = nil,
        updateOrigin: String = "REST_API",
        updateType: UpdateType = .incrementalUpdate,
        completes: ChangeRequestCompletion? = nil,
        promotedFrom: PromotionSource? = nil
    ) {
        self.updateUser = updateUser
        self.description = description
        self.updateOrigin = updateOrigin
        self.updateType = updateType
        self.completes = completes
        self.promotedFrom = promotedFrom
    }
}
