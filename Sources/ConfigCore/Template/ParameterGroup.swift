/// A named group of parameters (`RemoteConfigParameterGroup`, spec §2.2).
///
/// Groups only organise the console: a key lives either at the top level or in one group, and
/// clients read all keys flat.
public struct ParameterGroup: Sendable, Equatable, Codable {
    public var description: String?
    public var parameters: [String: RemoteConfigParameter]

    public init(description: String? = nil, parameters: [String: RemoteConfigParameter] = [:]) {
        self.description = description
        self.parameters = parameters
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TemplateCodingKey.self)
        description = try container.decodeIfPresent(String.self, "description")
        parameters = try container.decodeIfPresent([String: RemoteConfigParameter].self, "parameters") ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TemplateCodingKey.self)
        try container.encodeIfPresent(description, forKey: "description")
        try container.encode(parameters, forKey: "parameters")
    }
}
