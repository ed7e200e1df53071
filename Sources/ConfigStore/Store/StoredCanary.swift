public import ConfigCore
public import Foundation

/// A running canary: version `canaryVersion` served to the instances whose bucket for `seed`
/// is below `microPercent` (of 10^8), while the active version stays the stable one.
public struct StoredCanary: Sendable, Equatable {
    public var project: String
    public var namespace: TemplateNamespace
    public var canaryVersion: Int64
    /// 1 ... 100_000_000 (micro-percent).
    public var microPercent: Int64
    /// Chosen per canary, so that each canary tries other instances.
    public var seed: String
    public var startTime: Date
    /// When the share last changed (the start time until then).
    public var updateTime: Date
    /// Who started the canary or last changed its share.
    public var updateUser: String?
    /// When the canary is promoted by itself, if it is.
    public var promoteAt: Date?

    /// - Parameters: see the properties.
    public init(
        project: String, namespace: TemplateNamespace, canaryVersion: Int64, microPercent: Int64, seed: String,
        startTime: Date, updateTime: Date, updateUser: String?, promoteAt: Date?
    ) {
        self.project = project
        self.namespace = namespace
        self.canaryVersion = canaryVersion
        self.microPercent = microPercent
        self.seed = seed
        self.startTime = startTime
        self.updateTime = updateTime
        self.updateUser = updateUser
        self.promoteAt = promoteAt
    }
}

/// What a version did to a canary (`canary_action`); nil for most versions.
public enum CanaryAction: String, Sendable, Hashable {
    /// The version was published as a canary.
    case canary = "CANARY"
    /// The version copies a canary version, for everyone.
    case promotion = "PROMOTION"
    /// The version copies the stable version back, ending a canary.
    case abort = "ABORT"
}
