import ConfigCore
import Foundation
import ServerCore

/// The evaluation context of an OFREP request (`{"context": {"targetingKey": …, …}}`), read
/// into the context the Firebase fetch evaluates (docs/openfeature.md, "The context"):
/// `targetingKey` is the app instance id (and the server templates' randomization id); a few
/// attributes are the fetch's fields; every other attribute with a string, number or boolean
/// value is a custom signal.
struct OFREPContext {
    let targetingKey: String
    let evaluation: EvaluationContext

    /// - Parameter flag: the flag of a single evaluation, named in its errors.
    /// - Throws: 400 `PARSE_ERROR` for a body that is not a JSON object, `INVALID_CONTEXT` for a
    ///   missing context or an attribute of the wrong type, `TARGETING_KEY_MISSING`.
    init(body: [UInt8], now: Date, defaultPercentSeed: String, flag: String?) throws(OFREPError) {
        let parsed: (members: [(name: String, value: JSONValue)], listed: [(name: String, value: JSONValue)]?)?
        do {
            parsed = try LenientJSON.parseMembers(body, listing: "context")
        } catch {
            throw OFREPError(400, .parseError, "Invalid JSON: \(error.message) at byte \(error.offset).", key: flag)
        }
        guard let parsed else { throw OFREPError(400, .parseError, "The request body must be a JSON object.", key: flag) }
        guard case .object? = parsed.members.last(where: { $0.name == "context" })?.value, let attributes = parsed.listed else {
            throw OFREPError(400, .invalidContext, "The request needs a 'context' object.", key: flag)
        }
        var context = EvaluationContext(now: now, defaultPercentSeed: defaultPercentSeed)
        var explicitSignals: [String: String] = [:]
        var targetingKey: String?
        var firstOpenTime: String?
        for (name, value) in attributes {
            if name == "userProperties" || name == "customSignals" {
                guard case .object = value else {
                    throw OFREPError(400, .invalidContext, "The context attribute '\(name)' must be an object.", key: flag)
                }
                if name == "userProperties" { context.userProperties = ClientRequest.textMap(value) } else {
                    explicitSignals = ClientRequest.textMap(value)
                }
                continue
            }
            let text = ClientRequest.text(value)
            guard let field = Field(named: name) else {
                // Objects and arrays under other names are the application's own: not read.
                if let text { context.customSignals[name] = text }
                continue
            }
            guard let text else {
                throw OFREPError(400, .invalidContext, "The context attribute '\(name)' must be a string.", key: flag)
            }
            switch field {
            case .targetingKey:
                guard case .string = value else {
                    throw OFREPError(400, .invalidContext, "The context's targetingKey must be a string.", key: flag)
                }
                targetingKey = text
            case .appId: context.appId = text
            case .appVersion: context.appVersion = text
            case .appBuild: context.appBuild = text
            case .platform: context.platform = text
            case .country: context.countryCode = text
            case .language: context.languageCode = text
            case .timeZone: context.timeZone = text
            case .firstOpenTime: firstOpenTime = text
            }
        }
        guard let targetingKey, !targetingKey.isEmpty else {
            throw OFREPError(400, .targetingKeyMissing, "The context needs a non-empty targetingKey.", key: flag)
        }
        // An explicit `customSignals` object wins over attributes of the same name.
        if !explicitSignals.isEmpty { context.customSignals.merge(explicitSignals) { _, explicit in explicit } }
        context.appInstanceId = targetingKey
        context.randomizationId = targetingKey
        if context.platform == nil { context.platform = context.appId.flatMap(ClientRequest.platform(ofAppId:)) }
        context.firstOpenTime = firstOpenTime.flatMap { Timestamp(rfc3339: $0)?.date }
        self.targetingKey = targetingKey
        evaluation = context
    }

    /// The attributes read as the fetch's fields rather than as custom signals.
    private enum Field {
        case targetingKey, appId, appVersion, appBuild, platform, country, language, timeZone, firstOpenTime

        /// A switch over the names rather than `init(rawValue:)`, which looks a name up through
        /// the run time's string-switch table: a few hundred instructions per attribute.
        init?(named name: String) {
            switch name {
            case "targetingKey": self = .targetingKey
            case "appId": self = .appId
            case "appVersion": self = .appVersion
            case "appBuild": self = .appBuild
            case "platform": self = .platform
            case "country": self = .country
            case "language": self = .language
            case "timeZone": self = .timeZone
            case "firstOpenTime": self = .firstOpenTime
            default: return nil
            }
        }
    }
}
