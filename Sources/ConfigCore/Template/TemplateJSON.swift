public import Foundation

/// The JSON coding used for templates and for the answers built from them (diffs, dry runs).
public enum TemplateJSON {
    /// Encodes `value` with sorted keys and unescaped slashes, so equal values give equal bytes.
    ///
    /// Traps if `value` cannot be encoded: template types only fail on a non-finite number,
    /// which no decoded JSON contains, so a failure is a bug in the caller.
    public static func encode(_ value: some Encodable, prettyPrinted: Bool = false) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = prettyPrinted
            ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
            : [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            preconditionFailure("template JSON does not encode: \(error)")
        }
    }

    /// Decodes `type` from `data`; a failure becomes one issue naming the JSON path, e.g.
    /// `parameters.welcome.defaultValue: a parameter value needs exactly one of value, …`.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(TemplateValidationError) -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw TemplateValidationError(issues: [issue(for: error)])
        } catch {
            throw TemplateValidationError(issues: [.init(path: "", message: "the body is not valid JSON")])
        }
    }

    private static func issue(for error: DecodingError) -> TemplateValidationError.Issue {
        switch error {
        case .typeMismatch(let type, let context):
            return .init(path: path(context.codingPath), message: "expected \(typeName(type))")
        case .valueNotFound(let type, let context):
            return .init(path: path(context.codingPath), message: "expected \(typeName(type)), found null")
        case .keyNotFound(let key, let context):
            return .init(path: path(context.codingPath + [key]), message: "required member is missing")
        case .dataCorrupted(let context):
            // An empty path means the bytes are not JSON at all; the decoder's text is then
            // Foundation's and not worth passing on.
            if context.codingPath.isEmpty {
                return .init(path: "", message: "the body is not valid JSON")
            }
            return .init(path: path(context.codingPath), message: context.debugDescription)
        @unknown default:
            return .init(path: "", message: "the body is not a valid template")
        }
    }

    /// `parameters.welcome.conditionalValues.ios`, `conditions[2].name`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var result = ""
        for key in codingPath {
            if let index = key.intValue {
                result += "[\(index)]"
            } else {
                result += result.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return result
    }

    private static func typeName(_ type: Any.Type) -> String {
        if type == String.self { return "a string" }
        if type == Bool.self { return "a boolean" }
        if type == Double.self || type == Int64.self || type == Int.self { return "a number" }
        let name = String(describing: type)
        if name.hasPrefix("Dictionary<") || name.hasPrefix("[") && name.contains(":") { return "an object" }
        if name.hasPrefix("Array<") || name.hasPrefix("[") { return "an array" }
        return "an object"
    }
}
