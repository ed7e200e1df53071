public import Foundation

/// A Remote Config template (`RemoteConfig`, spec §2.2), client or server.
///
/// Decoding accepts lowerCamelCase and snake_case member names, int64s as strings or numbers,
/// and `null` or missing collections. Encoding is canonical: lowerCamelCase, int64s as strings,
/// `conditions`/`parameters`/`parameterGroups` always present, optional members only when set,
/// and (through `jsonData()`) keys sorted, so equal templates encode to equal bytes.
///
/// Unknown members are dropped, at every level. Firebase's schema is closed (a proto message),
/// so an unknown member is either output a client echoes back (the Admin Node SDK's `etag`) or
/// a typo; dropping rather than rejecting keeps exported and SDK-made templates publishable,
/// and storing only known members keeps stored templates and their ETags canonical.
public struct RemoteConfigTemplate: Sendable, Equatable, Codable {
    /// In priority order: the first has the highest priority.
    public var conditions: [RemoteConfigCondition]
    /// Parameters outside any group.
    public var parameters: [String: RemoteConfigParameter]
    public var parameterGroups: [String: ParameterGroup]
    /// Output only, except `description`.
    public var version: TemplateVersion?

    public init(
        conditions: [RemoteConfigCondition] = [],
        parameters: [String: RemoteConfigParameter] = [:],
        parameterGroups: [String: ParameterGroup] = [:],
        version: TemplateVersion? = nil
    ) {
        self.conditions = conditions
        self.parameters = parameters
        self.parameterGroups = parameterGroups
        self.version = version
    }

    /// One parameter wherever it is defined.
    public struct ParameterEntry: Sendable, Equatable {
        public var key: String
        /// The group holding it; `nil` at the top level.
        public var group: String?
        public var parameter: RemoteConfigParameter

        /// Where it sits in the template JSON, e.g. `parameterGroups.onboarding.parameters.title`.
        public var path: String {
            if let group { "parameterGroups.\(group).parameters.\(key)" } else { "parameters.\(key)" }
        }
    }

    /// Every parameter, top-level and grouped, ordered by key, then top level before groups,
    /// then group name. A key defined twice (invalid) appears twice; readers that need one
    /// value per key take the first.
    public var allParameters: [ParameterEntry] {
        var entries = parameters.map { ParameterEntry(key: $0.key, group: nil, parameter: $0.value) }
        for (group, content) in parameterGroups {
            entries += content.parameters.map { ParameterEntry(key: $0.key, group: group, parameter: $0.value) }
        }
        return entries.sorted { lhs, rhs in
            (lhs.key, lhs.group == nil ? 0 : 1, lhs.group ?? "") < (rhs.key, rhs.group == nil ? 0 : 1, rhs.group ?? "")
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TemplateCodingKey.self)
        conditions = try container.decodeIfPresent([RemoteConfigCondition].self, "conditions") ?? []
        parameters = try container.decodeIfPresent([String: RemoteConfigParameter].self, "parameters") ?? [:]
        parameterGroups = try container.decodeIfPresent([String: ParameterGroup].self, "parameterGroups") ?? [:]
        version = try container.decodeIfPresent(TemplateVersion.self, "version")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TemplateCodingKey.self)
        try container.encode(conditions, forKey: "conditions")
        try container.encode(parameters, forKey: "parameters")
        try container.encode(parameterGroups, forKey: "parameterGroups")
        try container.encodeIfPresent(version, forKey: "version")
    }
}

extension RemoteConfigTemplate {
    /// Reads a template from a request or export body; a body that is not a template throws
    /// with the path of the offending member.
    public static func decode(json data: Data) throws(TemplateValidationError) -> RemoteConfigTemplate {
        try TemplateJSON.decode(RemoteConfigTemplate.self, from: data)
    }

    /// The canonical JSON of this template: sorted keys, so equal templates give equal bytes.
    public func jsonData(prettyPrinted: Bool = false) -> Data {
        TemplateJSON.encode(self, prettyPrinted: prettyPrinted)
    }
}
