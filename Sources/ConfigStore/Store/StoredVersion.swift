public import ConfigCore
public import Foundation

/// One stored template version and its metadata.
///
/// `templateJSON` holds the template bytes exactly as published; listings made without
/// `includeTemplateJSON` leave it empty.
public struct StoredVersion: Sendable, Equatable {
    /// The project ID.
    public var project: String
    /// `firebase` (client template) or `firebase-server` (server template).
    public var namespace: TemplateNamespace
    /// 1 for the first publish, then +1 per publish or rollback, without gaps.
    public var versionNumber: Int64
    /// When the version was committed, at millisecond precision; never earlier than the
    /// previous version's time.
    public var updateTime: Date
    /// Who published it (an email address), if known.
    public var updateUser: String?
    /// The publisher's description.
    public var description: String?
    /// `REST_API`, `CONSOLE`, `ADMIN_SDK_NODE`, ...
    public var updateOrigin: String
    /// `INCREMENTAL_UPDATE`, `FORCED_UPDATE` or `ROLLBACK` .
    public var updateType: UpdateType
    /// For a rollback, the version whose content it copied.
    public var rollbackSource: Int64?
    /// What the version did to a canary (see `CanaryAction`); nil for most versions.
    public var canaryAction: CanaryAction?
    /// For a promotion or an abort, the canary version it ended.
    public var canarySource: Int64?
    /// The environment and version a promotion copied.
    public var promotedFrom: PromotionSource?
    /// The template JSON bytes.
    public var templateJSON: [UInt8]

    /// - Parameters: see the properties.
    public init(
        project: String, namespace: TemplateNamespace, versionNumber: Int64, updateTime: Date,
        updateUser: String?, description: String?, updateOrigin: String, updateType: UpdateType,
        rollbackSource: Int64?, canaryAction: CanaryAction? = nil, canarySource: Int64? = nil, promotedFrom: PromotionSource? = nil,
        templateJSON: [UInt8]
    ) {
        self.project = project
        self.namespace = namespace
        self.versionNumber = versionNumber
        self.updateTime = updateTime
        self.updateUser = updateUser
        self.description = description
        self.updateOrigin = updateOrigin
        self.updateType = updateType
        self.rollbackSource = rollbackSource
        self.canaryAction = canaryAction
        self.canarySource = canarySource
        self.promotedFrom = promotedFrom
        self.templateJSON = templateJSON
    }
}
