/// Where a version promoted from another environment came from (docs/environments.md): that
/// environment and its version. Written in a version's `version` block as `promotedFrom`
/// (`{"environment": "staging", "versionNumber": "14"}`, the number a string as Firebase writes
/// int64s).
public struct PromotionSource: Sendable, Hashable, Codable {
    public var environment: EnvironmentID
    public var versionNumber: Int64

    public init(environment: EnvironmentID, versionNumber: Int64) {
        self.environment = environment
        self.versionNumber = versionNumber
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TemplateCodingKey.self)
        environment = try container.decode(EnvironmentID.self, "environment")
        versionNumber = try container.decodeInt64IfPresent("versionNumber") ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TemplateCodingKey.self)
        try container.encode(environment, forKey: "environment")
        try container.encodeInt64IfPresent(versionNumber, forKey: "versionNumber")
    }
}
