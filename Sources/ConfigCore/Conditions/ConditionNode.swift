import Foundation

/// A parsed condition expression: `&&`/`||` chains are flat lists, so evaluation recursion is
/// bounded by the parenthesis/`!` nesting limit, not by the expression's length.
indirect enum ConditionNode: Sendable {
    case constant(Bool)
    case all([ConditionNode])
    case any([ConditionNode])
    /// `offset`: where the `!` or the rule starts in the source, for later error messages.
    case not(ConditionNode, offset: Int)
    case rule(ConditionRule, offset: Int)

    func evaluate(in context: EvaluationContext) -> Bool {
        switch self {
        case .constant(let value): value
        case .all(let nodes): Self.all(nodes, in: context)
        case .any(let nodes): !Self.all(nodes, in: context, are: false)
        case .not(let node, _): !node.evaluate(in: context)
        case .rule(let rule, _): rule.evaluate(in: context)
        }
    }

    /// Whether every node evaluates to `value`, stopping at the first that does not; in place
    /// over the array's buffer, as this runs for every condition of every fetch.
    private static func all(_ nodes: [ConditionNode], in context: EvaluationContext, are value: Bool = true) -> Bool {
        nodes.withUnsafeBufferPointer { nodes in
            for index in nodes.indices where nodes[index].evaluate(in: context) != value { return false }
            return true
        }
    }
}

/// Where a string-valued rule reads its value.
enum ValueElement: Sendable, Hashable {
    case appId, appVersion, appBuild
    case userProperty(String)
    case customSignal(String)
    /// An element the fetch request carries no input for (`app.operatingSystemAndVersion`...).
    case unavailable(String)

    func value(in context: EvaluationContext) -> String? {
        switch self {
        case .appId: context.appId
        case .appVersion: context.appVersion
        case .appBuild: context.appBuild
        case .userProperty(let key): context.userProperties[key]
        case .customSignal(let key): context.customSignals[key]
        case .unavailable: nil
        }
    }
}

/// How a string-valued rule tests its value.
enum ValueTest: Sendable {
    /// Method calls (`.contains([...])`, `.>=([...])`) and numeric comparisons, with
    /// custom-signal semantics.
    case signal(SignalMatcher)
    /// `== 'x'` and `in ['x', 'y']`: exact equality with any of the values.
    case equalsAny([String])
    /// `!= 'x'`.
    case notEqual(String)

    func matches(_ value: String) -> Bool {
        switch self {
        case .signal(let matcher): matcher.matches(value)
        case .equalsAny(let targets): targets.contains { Text.equal(value, $0) }
        case .notEqual(let target): !Text.equal(value, target)
        }
    }
}

/// One element test of a condition expression. Every rule whose input the client did not send
/// is false (protocol notes §2.8), including negative ones such as `!=` and `notContains`.
enum ConditionRule: Sendable {
    /// `device.os == 'ios'` (value lower-cased); `equal` is false for `!=`.
    case platform(String, equal: Bool)
    case value(ValueElement, ValueTest)
    /// `device.country in [...]`, upper-cased.
    case country([String])
    /// `device.language in [...]`.
    case language([String])
    /// `app.firebaseInstallationId in [...]`.
    case installationId([String])
    /// A rule on an element the request has no input for, e.g. `app.audiences`.
    case unavailable(String)
    /// `percent` rules; `seed == nil` uses the context's default seed.
    case percent(seed: String?, PercentRule)
    case dateTime(ComparisonOperator, DateLiteral)
    case firstOpen(ComparisonOperator, DateLiteral)

    func evaluate(in context: EvaluationContext) -> Bool {
        switch self {
        case .platform(let platform, let equal):
            guard let actual = ConditionRule.platform(of: context) else { return false }
            return Text.equalIgnoringASCIICase(actual, platform) == equal
        case .value(let element, let test):
            guard let value = element.value(in: context) else { return false }
            return test.matches(value)
        case .country(let codes):
            guard let country = context.countryCode, !country.isEmpty else { return false }
            return codes.contains { Text.equalIgnoringASCIICase(country, $0) }
        case .language(let tags):
            guard let language = context.languageCode, !language.isEmpty else { return false }
            return tags.contains { ConditionRule.language(language, matches: $0) }
        case .installationId(let ids):
            guard let id = context.clientInstanceId else { return false }
            return ids.contains { Text.equal(id, $0) }
        case .unavailable:
            return false
        case .percent(let seed, let rule):
            return rule.matches(seed: seed ?? context.defaultPercentSeed, randomizationId: context.clientInstanceId)
        case .dateTime(let comparison, let date):
            let zone = context.timeZone.flatMap(TimeZone.init(identifier:)) ?? ConditionRule.utc
            return comparison.holds(context.now, date.instant(in: zone))
        case .firstOpen(let comparison, let date):
            guard let firstOpen = context.firstOpenTime else { return false }
            return comparison.holds(firstOpen, date.instant(in: ConditionRule.utc))
        }
    }

    static let utc = TimeZone(identifier: "UTC")!

    /// The client's platform, or the platform segment of its app id
    /// (`1:123456789012:android:0a1b2c3d4e5f6789`).
    static func platform(of context: EvaluationContext) -> Substring? {
        if let platform = context.platform, !platform.isEmpty { return Substring(platform) }
        // The third ':'-separated field, found without allocating.
        guard let appId = context.appId else { return nil }
        let utf8 = appId.utf8
        let colon = UInt8(ascii: ":")
        guard let first = utf8.firstIndex(of: colon),
              let second = utf8[utf8.index(after: first)...].firstIndex(of: colon) else { return nil }
        let start = utf8.index(after: second)
        let end = utf8[start...].firstIndex(of: colon) ?? utf8.endIndex
        return start < end ? appId[start..<end] : nil
    }

    /// Language tags match ignoring case and `-`/`_`; a target without region (`de`) also
    /// matches every region of that language (`de-AT`, `de_CH`).
    static func language(_ actual: String, matches target: String) -> Bool {
        func normalized(_ byte: UInt8) -> UInt8 {
            byte == UInt8(ascii: "_") ? UInt8(ascii: "-") : (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
        }
        var actualBytes = actual.utf8.makeIterator()
        for targetByte in target.utf8 {
            guard let actualByte = actualBytes.next(), normalized(actualByte) == normalized(targetByte) else {
                return false
            }
        }
        guard let following = actualBytes.next() else { return true }
        return normalized(following) == UInt8(ascii: "-") && !target.utf8.contains { normalized($0) == UInt8(ascii: "-") }
    }
}
