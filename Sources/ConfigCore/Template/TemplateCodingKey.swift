/// A coding key made from any member name.
///
/// Template JSON follows the proto3 JSON mapping (spec §1.3): output is lowerCamelCase, input may
/// spell a member in lowerCamelCase or in the proto's snake_case. Types in this folder decode
/// through the helpers below, which look for both spellings, and always encode lowerCamelCase.
struct TemplateCodingKey: CodingKey, ExpressibleByStringLiteral {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init(stringLiteral name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    /// `defaultValue` → `default_value`.
    var snakeCased: TemplateCodingKey {
        TemplateCodingKey(ProtoJSONName.snakeCase(stringValue))
    }
}

extension KeyedDecodingContainer where Key == TemplateCodingKey {
    /// The key under which member `name` is present: its lowerCamelCase or its snake_case spelling.
    func presentKey(_ name: TemplateCodingKey) -> TemplateCodingKey? {
        if contains(name) { return name }
        let snake = name.snakeCased
        return contains(snake) ? snake : nil
    }

    /// Member `name` in either spelling; `nil` when absent or `null`.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, _ name: TemplateCodingKey) throws -> T? {
        guard let key = presentKey(name) else { return nil }
        return try decodeIfPresent(type, forKey: key)
    }

    /// Required member `name` in either spelling.
    func decode<T: Decodable>(_ type: T.Type, _ name: TemplateCodingKey) throws -> T {
        guard let key = presentKey(name) else {
            throw DecodingError.keyNotFound(
                name, DecodingError.Context(codingPath: codingPath, debugDescription: "required")
            )
        }
        return try decode(type, forKey: key)
    }

    /// An int64 member, written as a JSON string (proto3) or as a number (spec §1.3).
    func decodeInt64IfPresent(_ name: TemplateCodingKey) throws -> Int64? {
        guard let key = presentKey(name), try !decodeNil(forKey: key) else { return nil }
        if let text = try? decode(String.self, forKey: key) {
            guard let number = Int64(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: self, debugDescription: "'\(text)' is not an int64"
                )
            }
            return number
        }
        return try decode(Int64.self, forKey: key)
    }
}

extension KeyedEncodingContainer where Key == TemplateCodingKey {
    /// Writes an int64 as a JSON string, as proto3 JSON does.
    mutating func encodeInt64IfPresent(_ value: Int64?, forKey key: TemplateCodingKey) throws {
        if let value { try encode(String(value), forKey: key) }
    }
}
