package import ConfigCore
import Foundation

/// A JSON body of the management API, read strictly, as the config file is: a member the call
/// does not know, a value of another type than the member's, or bytes that are not UTF-8 are a
/// 400 naming the member, never dropped (a misspelt limit or policy must not be silently
/// ignored). Its syntax is RFC 8259's, without the lenient forms an SDK's fetch body may use:
/// that body is not one of these and stays lenient (`ClientRequest`).
package struct ManagementBody {
    /// The members sent, by name (snake_case names already in lowerCamelCase, as Google's JSON
    /// mapping reads both); an empty body has none.
    private let members: [String: JSONValue]
    /// Put before a member's name in refusals: "" at the top, "canary." inside `canary`.
    private let prefix: String

    /// - Parameter fields: the members the call knows; any other is refused.
    package init(_ body: [UInt8], fields: Set<String>) throws(APIError) {
        try Self.requireUTF8(body)
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            try self.init(checking: [:], fields: fields, context: "the body", prefix: "")
            return
        }
        let parsed: JSONValue
        do {
            parsed = try JSONDecoder().decode(JSONValue.self, from: Data(body))
        } catch {
            // Foundation's decoder says no more than that (no position) on Linux.
            throw APIError.badRequest("The request body is not valid JSON.")
        }
        guard case .object(let object) = parsed else { throw APIError.badRequest("The request body must be a JSON object.") }
        var members: [String: JSONValue] = [:]
        for (name, value) in object { members[ClientRequest.camelCase(name)] = value }
        try self.init(checking: members, fields: fields, context: "the body", prefix: "")
    }

    /// - Parameter context: what a refusal calls the object: "the body", "'canary'".
    private init(checking members: [String: JSONValue], fields: Set<String>, context: String, prefix: String) throws(APIError) {
        if let unknown = members.keys.sorted().first(where: { !fields.contains($0) }) {
            throw APIError.badRequest("Unknown field '\(prefix)\(unknown)' in \(context); it has \(fields.sorted().joined(separator: ", ")).")
        }
        self.members = members
        self.prefix = prefix
    }

    /// Refuses bytes that are not UTF-8 (they would be stored as U+FFFD).
    package static func requireUTF8(_ body: [UInt8]) throws(APIError) {
        guard String(validating: body, as: UTF8.self) != nil else {
            throw APIError.badRequest("The request body is not UTF-8.")
        }
    }

    package func string(_ name: String) throws(APIError) -> String? {
        guard let value = present(name) else { return nil }
        guard case .string(let text) = value else { throw wrongType(name, "a string", value) }
        return text
    }

    /// true or false, or (as Google's JSON mapping reads a bool, and rcctl sends its fields)
    /// the text "true" or "false".
    package func bool(_ name: String) throws(APIError) -> Bool? {
        guard let value = present(name) else { return nil }
        switch value {
        case .bool(let flag): return flag
        case .string("true"): return true
        case .string("false"): return false
        default: throw wrongType(name, "true or false", value)
        }
    }

    /// A whole number, sent as a number or, as Google's JSON writes an int64, as a string.
    package func integer(_ name: String) throws(APIError) -> Int64? {
        guard let value = present(name) else { return nil }
        switch value {
        case .number(let number) where number.rounded() == number && abs(number) < 9.0e15: return Int64(number)
        case .string(let text) where Int64(text) != nil: return Int64(text)
        default: throw wrongType(name, "a whole number", value)
        }
    }

    /// A number, sent as a number or as a string holding one; the text as written for the
    /// caller's own parsing (shares, percents).
    package func numberText(_ name: String) throws(APIError) -> String? {
        guard let value = present(name) else { return nil }
        switch value {
        case .number: return ClientRequest.text(value)
        case .string(let text) where Double(text) != nil: return text
        default: throw wrongType(name, "a number", value)
        }
    }

    /// An object whose values are all strings (`roles`: project → role).
    package func stringMap(_ name: String, describing what: String) throws(APIError) -> [String: String]? {
        guard let value = present(name) else { return nil }
        guard case .object(let entries) = value else { throw wrongType(name, what, value) }
        var result: [String: String] = [:]
        for (key, entry) in entries {
            guard case .string(let text) = entry else { throw wrongType("\(name).\(key)", "a string", entry) }
            result[key] = text
        }
        return result
    }

    /// An array of strings.
    package func strings(_ name: String, describing what: String) throws(APIError) -> [String]? {
        guard let value = present(name) else { return nil }
        guard case .array(let items) = value else { throw wrongType(name, what, value) }
        var result: [String] = []
        for item in items {
            guard case .string(let text) = item else { throw wrongType(name, what, item) }
            result.append(text)
        }
        return result
    }

    /// A nested object, read as strictly against its own `fields`.
    package func object(_ name: String, fields: Set<String>) throws(APIError) -> ManagementBody? {
        guard let value = present(name) else { return nil }
        guard case .object(let entries) = value else { throw wrongType(name, "an object", value) }
        return try ManagementBody(checking: entries, fields: fields, context: "'\(prefix)\(name)'", prefix: "\(prefix)\(name).")
    }

    /// A member kept as JSON (a template inside a change request).
    package func json(_ name: String) -> JSONValue? { present(name) }

    /// A member's value; null reads as left out.
    private func present(_ name: String) -> JSONValue? {
        guard let value = members[name], value != .null else { return nil }
        return value
    }

    private func wrongType(_ name: String, _ expected: String, _ value: JSONValue) -> APIError {
        APIError.badRequest("'\(prefix)\(name)' must be \(expected), got \(Self.kind(of: value)).")
    }

    private static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
