/// The members of a JSON object read the way Google's proto3 JSON parsers do: field names in
/// lowerCamelCase or snake_case, `null` meaning absent, unknown names rejected.
/// Errors are `ConditionSyntaxError`s whose message starts with the JSON path.
struct JSONFields {
    private var members: [String: JSONValue] = [:]
    let path: String

    init(_ json: JSONValue, path: String, allowed: [String]) throws(ConditionSyntaxError) {
        self.path = path
        guard case .object(let object) = json else {
            throw JSONFields.error(path, allowed.isEmpty ? "expected an empty object" : "expected an object")
        }
        // Sorted so that the reported error does not depend on dictionary order.
        for name in object.keys.sorted() {
            guard let field = allowed.first(where: { $0 == name || ProtoJSONName.snakeCase($0) == name }) else {
                let expected = allowed.isEmpty ? "an empty object" : "one of " + allowed.joined(separator: ", ")
                throw JSONFields.error("\(path).\(name)", "unknown field (expected \(expected))")
            }
            guard let value = object[name], value != .null else { continue }
            if members[field] != nil {
                throw JSONFields.error("\(path).\(name)", "field given twice (as \(field) and \(ProtoJSONName.snakeCase(field)))")
            }
            members[field] = value
        }
    }

    subscript(field: String) -> JSONValue? { members[field] }

    func string(_ field: String) throws(ConditionSyntaxError) -> String? {
        guard let value = members[field] else { return nil }
        guard case .string(let string) = value else { throw JSONFields.error("\(path).\(field)", "expected a string") }
        return string
    }

    /// An integer 0...100 000 000, as a JSON number or (proto3 style) a decimal string.
    func microPercent(_ field: String) throws(ConditionSyntaxError) -> UInt64? {
        guard let value = members[field] else { return nil }
        let number: UInt64?
        switch value {
        case .number(let double) where double >= 0 && double <= Double(PercentBucket.microPercentScale)
                                      && double.rounded() == double:
            number = UInt64(double)
        case .string(let text):
            number = UInt64(text).flatMap { $0 <= PercentBucket.microPercentScale ? $0 : nil }
        default:
            number = nil
        }
        guard let number else {
            throw JSONFields.error("\(path).\(field)", "expected an integer from 0 to \(PercentBucket.microPercentScale)")
        }
        return number
    }

    static func error(_ path: String, _ message: String) -> ConditionSyntaxError {
        ConditionSyntaxError(message: "\(path): \(message)", offset: 0)
    }
}
