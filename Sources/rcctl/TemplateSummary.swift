import ConfigClient

/// The parts of a template `rcctl` shows to people; anything else is ignored.
struct TemplateSummary: Decodable {
    struct Condition: Decodable {
        var name: String
        var expression: String?
    }

    struct Value: Decodable {
        struct Rollout: Decodable {
            var rolloutId: String?
            var value: String?
            var percent: Double?
        }

        struct Reference: Decodable {
            var personalizationId: String?
            var experimentId: String?
        }

        var value: String?
        var useInAppDefault: Bool?
        var rolloutValue: Rollout?
        var personalizationValue: Reference?
        var experimentValue: Reference?

        var text: String {
            if let value { return "\"\(value)\"" }
            if useInAppDefault == true { return "(in-app default)" }
            if let rollout = rolloutValue {
                return "rollout \(rollout.rolloutId ?? "?"): \"\(rollout.value ?? "")\" at \(rollout.percent.map { "\($0)" } ?? "?")%"
            }
            if let id = personalizationValue?.personalizationId { return "(personalization \(id))" }
            if let id = experimentValue?.experimentId { return "(experiment \(id))" }
            return "(no value)"
        }
    }

    struct Parameter: Decodable {
        var defaultValue: Value?
        var conditionalValues: [String: Value]?
        var valueType: String?
        var description: String?
    }

    struct Group: Decodable {
        var description: String?
        var parameters: [String: Parameter]?
    }

    var conditions: [Condition]?
    var parameters: [String: Parameter]?
    var parameterGroups: [String: Group]?
    var version: TemplateVersion?

    /// A few lines per condition and parameter, conditional values in condition priority order.
    func render(etag: String?) -> String {
        var lines: [String] = []
        if let version { lines.append(VersionTable.describe(version)) } else { lines.append("No published version") }
        if let etag { lines.append("ETag \(etag)") }
        let conditions = conditions ?? []
        lines.append("Conditions (\(conditions.count)):")
        lines += conditions.map { "  \($0.name): \($0.expression ?? "")" }
        var all = (parameters ?? [:]).map { (name: $0.key, parameter: $0.value) }
        for (group, content) in parameterGroups ?? [:] {
            all += (content.parameters ?? [:]).map { (name: "\(group)/\($0.key)", parameter: $0.value) }
        }
        lines.append("Parameters (\(all.count)):")
        let order = Dictionary(conditions.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { first, _ in first })
        for (name, parameter) in all.sorted(by: { $0.name < $1.name }) {
            lines.append("  \(name) (\(parameter.valueType ?? "STRING")) = \(parameter.defaultValue?.text ?? "(no default)")")
            let conditional = (parameter.conditionalValues ?? [:]).sorted { (order[$0.key] ?? .max, $0.key) < (order[$1.key] ?? .max, $1.key) }
            lines += conditional.map { "    if \($0.key): \($0.value.text)" }
        }
        return lines.joined(separator: "\n")
    }
}

extension AdminClient.Response {
    /// `version.versionNumber` of a template answer (publish, rollback, get), when present.
    var templateVersionNumber: Int64? {
        struct VersionOnly: Decodable { var version: TemplateVersion? }
        return (try? decode(VersionOnly.self))?.version?.versionNumber
    }

    /// ` (ETag …)` when the answer carries one, for the lines rcctl prints.
    var etagNote: String { etag.map { " (ETag \($0))" } ?? "" }
}
