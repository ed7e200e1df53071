/// A named condition (`RemoteConfigCondition`, spec §2.2; `NamedCondition`, spec §5.1).
///
/// Client templates write the rule as an `expression` (§6). Server templates are either authored
/// the same way or carry the structured `condition` (`OneOfCondition`) that `serverRemoteConfig`
/// returns; one type covers both so a template keeps a single condition list and one priority
/// order. The validator requires exactly one of the two, and `condition` only in server templates.
public struct RemoteConfigCondition: Sendable, Equatable, Codable {
    /// Unique within the template; conditional values refer to it.
    public var name: String
    /// The rule in the expression language, e.g. `device.os == 'ios'`.
    public var expression: String?
    /// The structured rule of a server template, kept as written.
    public var condition: JSONValue?
    /// Display colour in the console, e.g. `INDIGO`; no effect on evaluation.
    public var tagColor: String?

    /// Colours Firebase accepts for `tagColor`.
    public static let tagColors: Set<String> = [
        "CONDITION_DISPLAY_COLOR_UNSPECIFIED", "BLUE", "BROWN", "CYAN", "DEEP_ORANGE", "GREEN",
        "INDIGO", "LIME", "ORANGE", "PINK", "PURPLE", "TEAL",
    ]

    /// A client-template condition.
    public init(name: String, expression: String, tagColor: String? = nil) {
        self.name = name
        self.expression = expression
        self.tagColor = tagColor
    }

    /// A structured server-template condition.
    public init(name: String, condition: JSONValue, tagColor: String? = nil) {
        self.name = name
        self.condition = condition
        self.tagColor = tagColor
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TemplateCodingKey.self)
        name = try container.decode(String.self, "name")
        expression = try container.decodeIfPresent(String.self, "expression")
        condition = try container.decodeIfPresent(JSONValue.self, "condition")
        tagColor = try container.decodeIfPresent(String.self, "tagColor")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TemplateCodingKey.self)
        try container.encode(name, forKey: "name")
        try container.encodeIfPresent(expression, forKey: "expression")
        try container.encodeIfPresent(condition, forKey: "condition")
        try container.encodeIfPresent(tagColor, forKey: "tagColor")
    }
}
