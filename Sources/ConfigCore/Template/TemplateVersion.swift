/// The `version` block of a template (`Version`, spec §2.2).
///
/// Everything but `description` is output only: the server fills it on publish, and ignores
/// what a client sends (the Admin Node SDK strips it, exported templates carry it).
public struct TemplateVersion: Sendable, Equatable, Codable {
    /// int64, written as a JSON string.
    public var versionNumber: Int64?
    public var updateTime: Timestamp?
    public var updateUser: TemplateUser?
    /// The only input field: ≤ 1024 characters.
    public var description: String?
    public var updateOrigin: UpdateOrigin?
    public var updateType: UpdateType?
    /// The version a rollback copied (int64 as a JSON string); only on rollback results.
    public var rollbackSource: Int64?
    public var isLegacy: Bool?
    /// Beyond Firebase: `true` for a version published as a canary (to a share of instances).
    public var canary: Bool?
    /// Beyond Firebase: the canary version a `CANARY_PROMOTION` or `CANARY_ABORT` ended.
    public var canarySource: Int64?
    /// Beyond Firebase: the environment and version a promotion copied (docs/environments.md).
    public var promotedFrom: PromotionSource?

    public init(
        versionNumber: Int64? = nil,
        updateTime: Timestamp? = nil,
        updateUser: TemplateUser? = nil,
        description: String? = nil,
        updateOrigin: UpdateOrigin? = nil,
        updateType: UpdateType? = nil,
        rollbackSource: Int64? = nil,
        isLegacy: Bool? = nil,
        canary: Bool? = nil,
        canarySource: Int64? = nil,
        promotedFrom: PromotionSource? = nil
    ) {
        self.versionNumber = versionNumber
        self.updateTime = updateTime
        self.updateUser = updateUser
        self.description = description
        self.updateOrigin = updateOrigin
        self.updateType = updateType
        self.rollbackSource = rollbackSource
        self.isLegacy = isLegacy
        self.canary = canary
        self.canarySource = canarySource
        self.promotedFrom = promotedFrom
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TemplateCodingKey.self)
        versionNumber = try container.decodeInt64IfPresent("versionNumber")
        updateTime = try container.decodeIfPresent(Timestamp.self, "updateTime")
        updateUser = try container.decodeIfPresent(TemplateUser.self, "updateUser")
        description = try container.decodeIfPresent(String.self, "description")
        updateOrigin = try container.decodeIfPresent(UpdateOrigin.self, "updateOrigin")
        updateType = try container.decodeIfPresent(UpdateType.self, "updateType")
        rollbackSource = try container.decodeInt64IfPresent("rollbackSource")
        // The Java Admin SDK writes the flag as `legacy` (spec §2.2); read both, write `isLegacy`.
        isLegacy = try container.decodeIfPresent(Bool.self, "isLegacy")
            ?? container.decodeIfPresent(Bool.self, "legacy")
        canary = try container.decodeIfPresent(Bool.self, "canary")
        canarySource = try container.decodeInt64IfPresent("canarySource")
        promotedFrom = try container.decodeIfPresent(PromotionSource.self, "promotedFrom")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TemplateCodingKey.self)
        try container.encodeInt64IfPresent(versionNumber, forKey: "versionNumber")
        try container.encodeIfPresent(updateTime, forKey: "updateTime")
        try container.encodeIfPresent(updateUser, forKey: "updateUser")
        try container.encodeIfPresent(description, forKey: "description")
        try container.encodeIfPresent(updateOrigin, forKey: "updateOrigin")
        try container.encodeIfPresent(updateType, forKey: "updateType")
        try container.encodeInt64IfPresent(rollbackSource, forKey: "rollbackSource")
        try container.encodeIfPresent(isLegacy, forKey: "isLegacy")
        try container.encodeIfPresent(canary, forKey: "canary")
        try container.encodeInt64IfPresent(canarySource, forKey: "canarySource")
        try container.encodeIfPresent(promotedFrom, forKey: "promotedFrom")
    }
}

/// Who published a version (`RemoteConfigUser`).
public struct TemplateUser: Sendable, Equatable, Codable {
    public var email: String?
    public var name: String?
    public var imageUrl: String?

    public init(email: String? = nil, name: String? = nil, imageUrl: String? = nil) {
        self.email = email
        self.name = name
        self.imageUrl = imageUrl
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TemplateCodingKey.self)
        email = try container.decodeIfPresent(String.self, "email")
        name = try container.decodeIfPresent(String.self, "name")
        imageUrl = try container.decodeIfPresent(String.self, "imageUrl")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TemplateCodingKey.self)
        try container.encodeIfPresent(email, forKey: "email")
        try container.encodeIfPresent(name, forKey: "name")
        try container.encodeIfPresent(imageUrl, forKey: "imageUrl")
    }
}

/// `Version.updateOrigin`. A string wrapper: output only, so an unknown value read from an
/// export is kept rather than failing the whole template.
public struct UpdateOrigin: RawRepresentable, Sendable, Hashable, Codable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let unspecified = UpdateOrigin(rawValue: "REMOTE_CONFIG_UPDATE_ORIGIN_UNSPECIFIED")
    public static let console = UpdateOrigin(rawValue: "CONSOLE")
    public static let restAPI = UpdateOrigin(rawValue: "REST_API")
    public static let adminSDKNode = UpdateOrigin(rawValue: "ADMIN_SDK_NODE")

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// `Version.updateType`.
public struct UpdateType: RawRepresentable, Sendable, Hashable, Codable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let unspecified = UpdateType(rawValue: "REMOTE_CONFIG_UPDATE_TYPE_UNSPECIFIED")
    /// A normal publish.
    public static let incrementalUpdate = UpdateType(rawValue: "INCREMENTAL_UPDATE")
    /// A publish with `If-Match: *`.
    public static let forcedUpdate = UpdateType(rawValue: "FORCED_UPDATE")
    public static let rollback = UpdateType(rawValue: "ROLLBACK")
    /// Beyond Firebase: a copy of a canary version for every instance.
    public static let canaryPromotion = UpdateType(rawValue: "CANARY_PROMOTION")
    /// Beyond Firebase: a copy of the stable version that ended a canary.
    public static let canaryAbort = UpdateType(rawValue: "CANARY_ABORT")

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
