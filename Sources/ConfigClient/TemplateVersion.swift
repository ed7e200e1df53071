/// The `version` block of a template, as listed by `remoteConfig:listVersions`.
public struct TemplateVersion: Sendable, Equatable, Decodable {
    /// Who published a version.
    public struct User: Sendable, Equatable, Decodable {
        public var email: String?
        public var name: String?
    }

    /// Where a version promoted from another environment came from (docs/environments.md).
    public struct PromotionSource: Sendable, Equatable, Decodable {
        public var environment: String
        public var versionNumber: Int64

        private enum CodingKeys: String, CodingKey {
            case environment, versionNumber
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            environment = try container.decode(String.self, forKey: .environment)
            versionNumber = try container.decode(JSONInt64.self, forKey: .versionNumber).value
        }
    }

    public var versionNumber: Int64
    /// RFC 3339 UTC time of the publish.
    public var updateTime: String?
    public var updateUser: User?
    public var description: String?
    /// `REST_API`, `CONSOLE`, …
    public var updateOrigin: String?
    /// `INCREMENTAL_UPDATE`, `FORCED_UPDATE` or `ROLLBACK`.
    public var updateType: String?
    /// For rollbacks: the version rolled back to.
    public var rollbackSource: Int64?
    /// For promotions between environments: the environment and its version promoted.
    public var promotedFrom: PromotionSource?

    private enum CodingKeys: String, CodingKey {
        case versionNumber, updateTime, updateUser, description, updateOrigin, updateType, rollbackSource, promotedFrom
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        versionNumber = try container.decodeIfPresent(JSONInt64.self, forKey: .versionNumber)?.value ?? 0
        updateTime = try container.decodeIfPresent(String.self, forKey: .updateTime)
        updateUser = try container.decodeIfPresent(User.self, forKey: .updateUser)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        updateOrigin = try container.decodeIfPresent(String.self, forKey: .updateOrigin)
        updateType = try container.decodeIfPresent(String.self, forKey: .updateType)
        rollbackSource = try container.decodeIfPresent(JSONInt64.self, forKey: .rollbackSource)?.value
        promotedFrom = try container.decodeIfPresent(PromotionSource.self, forKey: .promotedFrom)
    }
}

/// One page of `remoteConfig:listVersions`, newest first.
public struct VersionPage: Sendable, Equatable, Decodable {
    public var versions: [TemplateVersion]
    /// Present when more versions follow.
    public var nextPageToken: String?

    private enum CodingKeys: String, CodingKey {
        case versions, nextPageToken
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        versions = try container.decodeIfPresent([TemplateVersion].self, forKey: .versions) ?? []
        let token = try container.decodeIfPresent(String.self, forKey: .nextPageToken)
        nextPageToken = token?.isEmpty == false ? token : nil
    }
}
