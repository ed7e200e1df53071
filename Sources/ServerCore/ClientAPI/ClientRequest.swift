package import ConfigCore
package import Foundation

/// The body of a fetch or real-time request, read in either field spelling (spec §1.3, §3.2):
/// Android sends lowerCamelCase, iOS and JS send snake_case.
package struct ClientRequest {
    struct Invalid: Error {
        let message: String
    }

    /// The top-level members, snake_case names already turned to lowerCamelCase.
    private let members: [(name: String, value: JSONValue)]

    /// Reads a request body: gzip or not (sniffed, spec §1.5), strict or lenient JSON.
    init(body: [UInt8], maxInflatedBytes: Int) throws(Invalid) {
        var bytes = body
        if Gzip.isCompressed(body) {
            do {
                bytes = try Gzip.inflate(body, limit: maxInflatedBytes)
            } catch {
                throw Invalid(message: error.message)
            }
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            members = []
            return
        }
        let parsed: [(name: String, value: JSONValue)]?
        do {
            parsed = try LenientJSON.parseMembers(bytes)
        } catch {
            throw Invalid(message: "Invalid JSON payload: \(error.message) at byte \(error.offset).")
        }
        guard let parsed else { throw Invalid(message: "The request body must be a JSON object.") }
        members = Self.camelCased(parsed)
    }

    /// The field named `camelName` or its snake_case spelling, as text (numbers rendered as written).
    package func string(_ camelName: String) -> String? {
        value(camelName).flatMap(Self.text)
    }

    /// The last member named `camelName` (as a JSON object, the last duplicate wins).
    private func value(_ camelName: String) -> JSONValue? {
        members.last { $0.name == camelName }?.value
    }

    /// An object's members whose values read as text; any other value is an empty map.
    package static func textMap(_ value: JSONValue) -> [String: String] {
        guard case .object(let entries) = value else { return [:] }
        var result: [String: String] = [:]
        for (key, value) in entries {
            if let text = text(value) { result[key] = text }
        }
        return result
    }

    /// An int64 field sent as a string or a number (`lastKnownVersionNumber`).
    func int64(_ camelName: String) -> Int64? {
        string(camelName).flatMap { Int64($0) }
    }

    /// The evaluation context this request describes, read in one pass over the members (in
    /// order, so the last duplicate wins, as with `string(_:)`). Gathered in locals and built
    /// once: every fetch runs this, and a context filled field by field is copied on the way.
    package func evaluationContext(now: Date, defaultPercentSeed: String) -> EvaluationContext {
        var appId: String?, appVersion: String?, appBuild: String?, platform: String?
        var countryCode: String?, languageCode: String?, appInstanceId: String?, randomizationId: String?
        var customSignals: [String: String] = [:], userProperties: [String: String] = [:]
        var timeZone: String?, firstOpenTime: String?
        for member in members {
            switch member.name {
            case "appInstanceId": appInstanceId = Self.text(member.value)
            case "appId": appId = Self.text(member.value)
            case "appVersion": appVersion = Self.text(member.value)
            case "appBuild": appBuild = Self.text(member.value)
            case "countryCode": countryCode = Self.text(member.value)
            case "languageCode": languageCode = Self.text(member.value)
            case "platform": platform = Self.text(member.value)
            case "customSignals": customSignals = Self.textMap(member.value)
            case "analyticsUserProperties": userProperties = Self.textMap(member.value)
            case "timeZone": timeZone = Self.text(member.value)
            case "firstOpenTime": firstOpenTime = Self.text(member.value)
            case "randomizationId": randomizationId = Self.text(member.value)
            default: break
            }
        }
        return EvaluationContext(
            appId: appId, appVersion: appVersion, appBuild: appBuild,
            platform: platform ?? appId.flatMap(Self.platform(ofAppId:)),
            countryCode: countryCode, languageCode: languageCode, appInstanceId: appInstanceId,
            randomizationId: randomizationId, customSignals: customSignals, userProperties: userProperties,
            firstOpenTime: firstOpenTime.flatMap { Timestamp(rfc3339: $0)?.date }, timeZone: timeZone,
            now: now, defaultPercentSeed: defaultPercentSeed)
    }

    /// `1:123456789012:android:0a1b…` → `android` (the app id format, spec §1.2).
    package static func platform(ofAppId appId: String) -> String? {
        // Over the string's own bytes (a native string has them; a copy is the fallback).
        if let platform = appId.utf8.withContiguousStorageIfAvailable(platform(ofAppIdBytes:)) { return platform }
        var appId = appId
        return appId.withUTF8(platform(ofAppIdBytes:))
    }

    /// The third of four `:`-separated fields, when it names a known platform (any case).
    private static func platform(ofAppIdBytes bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let colon = UInt8(ascii: ":")
        guard let first = bytes.firstIndex(of: colon),
              let second = bytes[(first + 1)...].firstIndex(of: colon),
              let third = bytes[(second + 1)...].firstIndex(of: colon) else { return nil }
        let field = UnsafeBufferPointer(rebasing: bytes[(second + 1)..<third])
        func names(_ name: StaticString) -> Bool {
            name.utf8CodeUnitCount == field.count
                && name.withUTF8Buffer { $0.elementsEqual(field) { $0 == $1 | 0x20 } }
        }
        if names("android") { return "android" }
        if names("ios") { return "ios" }
        if names("web") { return "web" }
        return nil
    }

    /// Snake_case names in their lowerCamelCase spelling, except where the camelCase member
    /// was sent too (it wins), so each lookup compares one spelling.
    private static func camelCased(_ members: [(name: String, value: JSONValue)]) -> [(name: String, value: JSONValue)] {
        // Over the name's own bytes (a native string has them): neither copied nor decoded.
        let isSnake = { (name: String) in
            name.utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: "_")) } ?? name.utf8.contains(UInt8(ascii: "_"))
        }
        guard members.contains(where: { isSnake($0.name) }) else { return members }
        var result = members.filter { !isSnake($0.name) }
        let sentInCamelCase = result.count
        for member in members where isSnake(member.name) {
            let camel = camelCase(member.name)
            if !result[..<sentInCamelCase].contains(where: { $0.name == camel }) { result.append((name: camel, value: member.value)) }
        }
        return result
    }

    /// `app_instance_id` → `appInstanceId` (ASCII only: field names are).
    static func camelCase(_ snake: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(snake.utf8.count)
        var upperNext = false
        for byte in snake.utf8 {
            if byte == UInt8(ascii: "_") {
                upperNext = !bytes.isEmpty
            } else if upperNext, byte >= UInt8(ascii: "a"), byte <= UInt8(ascii: "z") {
                bytes.append(byte - 32)
                upperNext = false
            } else {
                bytes.append(byte)
                upperNext = false
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A string, boolean or number as text (integral numbers without a fraction); nil otherwise.
    package static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number):
            if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
            return String(number)
        default: return nil
        }
    }

}

extension ClientRequest {
    /// Reads a client's JSON body (a fetch, a stream, `:evaluate`'s context); malformed input
    /// is a 400. Management bodies are read strictly instead (`ManagementBody`).
    package static func parseBody(_ body: [UInt8], limit: Int) throws(APIError) -> ClientRequest {
        do {
            return try ClientRequest(body: body, maxInflatedBytes: limit)
        } catch {
            throw APIError.badRequest(error.message)
        }
    }
}
