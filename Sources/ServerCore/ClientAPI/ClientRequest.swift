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
        guard let bytes = try Self.decoded(body, maxInflatedBytes: maxInflatedBytes) else {
            members = []
            return
        }
        let parsed = try Self.readingJSON { () throws(LenientJSON.SyntaxError) in try LenientJSON.parseMembers(bytes) }
        guard let parsed else { throw Self.notAnObject }
        members = Self.camelCased(parsed)
    }

    /// The JSON of a body, inflated if it came compressed; nil when it is empty or only
    /// whitespace (a body with nothing to say).
    static func decoded(_ body: [UInt8], maxInflatedBytes: Int) throws(Invalid) -> [UInt8]? {
        var bytes = body
        if Gzip.isCompressed(body) {
            do {
                bytes = try Gzip.inflate(body, limit: maxInflatedBytes)
            } catch {
                throw Invalid(message: error.message)
            }
        }
        return bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) ? nil : bytes
    }

    /// `read`'s result, its syntax error told as the client is told one.
    static func readingJSON<Result>(_ read: () throws(LenientJSON.SyntaxError) -> Result) throws(Invalid) -> Result {
        do {
            return try read()
        } catch {
            throw Invalid(message: "Invalid JSON payload: \(error.message) at byte \(error.offset).")
        }
    }

    static let notAnObject = Invalid(message: "The request body must be a JSON object.")

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

    /// The evaluation context this request describes (the last member of each name wins, as
    /// with `string(_:)`).
    package func evaluationContext(now: Date, defaultPercentSeed: String) -> EvaluationContext {
        var context = ContextMembers()
        for member in members { context.keepCamelCased(name: member.name, value: member.value) }
        return context.context(now: now, defaultPercentSeed: defaultPercentSeed)
    }

    /// `1:123456789012:android:0a1b…` → `android` (the app id format, spec §1.2).
    package static func platform(ofAppId appId: String) -> String? {
        appId.withUTF8Bytes(platform(ofAppIdBytes:))
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
        let isSnake = { (name: String) in name.withUTF8Bytes { $0.contains(UInt8(ascii: "_")) } }
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
        var snake = snake
        return snake.withUTF8 { snake in
            String(unsafeUninitializedCapacity: snake.count) { camelCase(snake, into: $0) }
        }
    }

    /// Writes the lowerCamelCase spelling of `snake` into `camel` (at least as long); returns
    /// its length. A `_` is dropped and upper-cases the letter after it, unless nothing precedes it.
    static func camelCase(_ snake: UnsafeBufferPointer<UInt8>, into camel: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var count = 0
        var upperNext = false
        for byte in snake {
            if byte == UInt8(ascii: "_") {
                upperNext = count > 0
            } else {
                camel[count] = upperNext && byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
                count += 1
                upperNext = false
            }
        }
        return count
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
