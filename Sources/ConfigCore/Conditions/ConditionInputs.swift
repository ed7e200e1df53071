/// One thing about the client that a condition reads.
///
/// Found once per publish so that the outcomes of conditions which read only slowly varying
/// inputs (app version, country, platform, language, a signal) can be reused for every client
/// that sends the same values: there are few distinct combinations of them, and many fetches.
enum ConditionInput: Hashable, Sendable {
    case appId, appVersion, appBuild, platform, country, language
    case userProperty(String)
    case customSignal(String)

    /// The client's value for this input, exactly as evaluation reads it.
    func value(in context: EvaluationContext) -> String? {
        switch self {
        case .appId: context.appId
        case .appVersion: context.appVersion
        case .appBuild: context.appBuild
        case .platform: context.platform
        case .country: context.countryCode
        case .language: context.languageCode
        case .userProperty(let key): context.userProperties[key]
        case .customSignal(let key): context.customSignals[key]
        }
    }

    /// A total order, so that a template's inputs are listed the same way on every compile.
    var sortKey: String {
        switch self {
        case .appId: "0"
        case .appVersion: "1"
        case .appBuild: "2"
        case .platform: "3"
        case .country: "4"
        case .language: "5"
        case .userProperty(let key): "6" + key
        case .customSignal(let key): "7" + key
        }
    }
}

/// What one condition reads: a set of inputs, or something that differs per client or per
/// moment (a percent rule, the installation id, the time), which makes its outcome volatile.
struct ConditionReads {
    var inputs: Set<ConditionInput> = []
    var isVolatile = false

    mutating func insert(_ input: ConditionInput) {
        inputs.insert(input)
    }
}

extension ConditionNode {
    func collectReads(into reads: inout ConditionReads) {
        switch self {
        case .constant: break
        case .all(let nodes), .any(let nodes):
            for node in nodes { node.collectReads(into: &reads) }
        case .not(let node, _): node.collectReads(into: &reads)
        case .rule(let rule, _): rule.collectReads(into: &reads)
        }
    }
}

extension ConditionRule {
    func collectReads(into reads: inout ConditionReads) {
        switch self {
        case .platform:
            // The platform segment of the app id stands in when no platform is sent.
            reads.insert(.platform)
            reads.insert(.appId)
        case .value(let element, _):
            switch element {
            case .appId: reads.insert(.appId)
            case .appVersion: reads.insert(.appVersion)
            case .appBuild: reads.insert(.appBuild)
            case .userProperty(let key): reads.insert(.userProperty(key))
            case .customSignal(let key): reads.insert(.customSignal(key))
            case .unavailable: break
            }
        case .country: reads.insert(.country)
        case .language: reads.insert(.language)
        case .unavailable: break
        case .installationId, .percent, .dateTime, .firstOpen: reads.isVolatile = true
        }
    }
}

extension ServerConditionNode {
    func collectReads(into reads: inout ConditionReads) {
        switch self {
        case .or(let children), .and(let children):
            for child in children { child.collectReads(into: &reads) }
        case .constant: break
        case .percent: reads.isVolatile = true
        case .customSignal(let key, _):
            if let key { reads.insert(.customSignal(key)) }
        }
    }
}

/// The values of the inputs a template's stable conditions read, for one client: clients with
/// equal `StableInputs` have equal outcomes for those conditions.
public struct StableInputs: Hashable, Sendable {
    let values: [String?]

    /// Bytes of client text a cache key may hold. The values come from the client (a version
    /// string can be megabytes long), so a cache of 4,096 keys must not keep whatever it is
    /// sent: real values are short, and a client sending long ones is evaluated in full.
    public static let maxCachedBytes = 512

    /// Whether these values are short enough to be kept as a cache key.
    public var isCacheable: Bool {
        var total = 0
        for value in values {
            total += value?.utf8.count ?? 0
            if total > Self.maxCachedBytes { return false }
        }
        return true
    }
}
