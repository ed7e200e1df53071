/// One thing about the client that a condition reads.
///
/// Found once per publish so that the outcomes of conditions which read only slowly varying
/// inputs (app version, country, platform, language, a signal) can be reused for every client
/// that sends the same values: there are few distinct combinations of them, and many fetches.
enum ConditionInput: Hashable, Sendable {
    /// The app id, version or build, a user property or a custom signal.
    case element(ValueElement)
    case platform, country, language

    /// The client's value for this input, exactly as evaluation reads it.
    func value(in context: EvaluationContext) -> String? {
        switch self {
        case .element(let element): element.value(in: context)
        case .platform: context.platform
        case .country: context.countryCode
        case .language: context.languageCode
        }
    }
}

/// What one condition reads: a set of inputs, or something that differs per client or per
/// moment (a percent rule, the installation id, the time), which makes its outcome volatile.
struct ConditionReads {
    var inputs: Set<ConditionInput> = []
    var isVolatile = false
    /// A percent rule splits clients by the hash of their id (OpenFeature's reason `SPLIT`).
    var readsPercent = false
    /// A `dateTime` rule reads the time of the request: its outcome changes with no new version.
    var readsTime = false
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
            reads.inputs.insert(.platform)
            reads.inputs.insert(.element(.appId))
        case .value(.unavailable, _): break
        case .value(let element, _): reads.inputs.insert(.element(element))
        case .country: reads.inputs.insert(.country)
        case .language: reads.inputs.insert(.language)
        case .unavailable: break
        case .percent:
            reads.isVolatile = true
            reads.readsPercent = true
        case .dateTime:
            reads.isVolatile = true
            reads.readsTime = true
        case .installationId, .firstOpen: reads.isVolatile = true
        }
    }
}

extension ServerConditionNode {
    func collectReads(into reads: inout ConditionReads) {
        switch self {
        case .or(let children), .and(let children):
            for child in children { child.collectReads(into: &reads) }
        case .constant: break
        case .percent:
            reads.isVolatile = true
            reads.readsPercent = true
        case .customSignal(let key, _):
            if let key { reads.inputs.insert(.element(.customSignal(key))) }
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
