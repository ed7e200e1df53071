package import ConfigCore
package import Foundation

/// The members of a client's body that its evaluation context is read from, as sent: per
/// field the last member in its lowerCamelCase spelling and the last in its snake_case one.
/// The camelCase member wins when both were sent (spec §1.3, §3.2), whatever the order.
struct ContextMembers {
    /// The fields, by their lowerCamelCase names (ASCII, so compared as bytes).
    enum Field: Int {
        case appInstanceId, appId, appVersion, appBuild, countryCode, languageCode, platform, customSignals
        case analyticsUserProperties, timeZone, firstOpenTime, randomizationId

        static let count = 12

        var name: StaticString {
            switch self {
            case .appInstanceId: "appInstanceId"
            case .appId: "appId"
            case .appVersion: "appVersion"
            case .appBuild: "appBuild"
            case .countryCode: "countryCode"
            case .languageCode: "languageCode"
            case .platform: "platform"
            case .customSignals: "customSignals"
            case .analyticsUserProperties: "analyticsUserProperties"
            case .timeZone: "timeZone"
            case .firstOpenTime: "firstOpenTime"
            case .randomizationId: "randomizationId"
            }
        }

        /// The field a lowerCamelCase member name names, if any.
        static func named(_ name: UnsafeBufferPointer<UInt8>) -> Field? {
            for raw in 0..<count {
                let field = Field(rawValue: raw)!
                let known = field.name
                if known.utf8CodeUnitCount == name.count,
                   memcmp(known.utf8Start, name.baseAddress!, name.count) == 0 { return field }
            }
            return nil
        }
    }

    /// A member as the context reads it: its text, or, for the two maps, its text members.
    private enum Member {
        case absent
        case text(String?)
        case map([String: String])
    }

    /// Camel-spelled members at `field.rawValue`, snake-spelled ones `Field.count` further.
    private var members = [Member](repeating: .absent, count: 2 * Field.count)

    /// Where a member named `name` (as sent) is kept: nil when it names none of the fields. A
    /// snake_case name (one with `_`) is read in its lowerCamelCase spelling, as
    /// ``ClientRequest/camelCase(_:)`` turns it.
    static func slot(named name: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !name.isEmpty else { return nil }
        guard name.contains(UInt8(ascii: "_")) else { return Field.named(name)?.rawValue }
        let field = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: name.count) { camel in
            Field.named(UnsafeBufferPointer(rebasing: camel[..<ClientRequest.camelCase(name, into: camel)]))
        }
        return field.map { Field.count + $0.rawValue }
    }

    /// Keeps `value` at `slot` (from ``slot(named:)``): a later member replaces an earlier one.
    mutating func keep(_ value: JSONValue, at slot: Int) {
        switch Field(rawValue: slot % Field.count)! {
        case .customSignals, .analyticsUserProperties: members[slot] = .map(ClientRequest.textMap(value))
        default: members[slot] = .text(ClientRequest.text(value))
        }
    }

    /// Notes a member whose name is already in its lowerCamelCase spelling.
    mutating func keepCamelCased(name: String, value: JSONValue) {
        var name = name
        guard let field = name.withUTF8({ $0.isEmpty ? nil : Field.named($0) }) else { return }
        keep(value, at: field.rawValue)
    }

    /// `field` as the request says it: its camelCase member if sent, else its snake_case one.
    private func member(_ field: Field) -> Member {
        if case .absent = members[field.rawValue] { return members[Field.count + field.rawValue] }
        return members[field.rawValue]
    }

    private func text(_ field: Field) -> String? {
        if case .text(let text) = member(field) { return text }
        return nil
    }

    private func map(_ field: Field) -> [String: String] {
        if case .map(let map) = member(field) { return map }
        return [:]
    }

    /// The evaluation context the members describe.
    func context(now: Date, defaultPercentSeed: String) -> EvaluationContext {
        let appId = text(.appId)
        return EvaluationContext(
            appId: appId, appVersion: text(.appVersion), appBuild: text(.appBuild),
            platform: text(.platform) ?? appId.flatMap(ClientRequest.platform(ofAppId:)),
            countryCode: text(.countryCode), languageCode: text(.languageCode), appInstanceId: text(.appInstanceId),
            randomizationId: text(.randomizationId),
            customSignals: map(.customSignals), userProperties: map(.analyticsUserProperties),
            firstOpenTime: text(.firstOpenTime).flatMap { Timestamp(rfc3339: $0)?.date }, timeZone: text(.timeZone),
            now: now, defaultPercentSeed: defaultPercentSeed)
    }
}
