/// Member names in the proto3 JSON mapping (spec §1.3): Google's APIs write lowerCamelCase and
/// accept the proto's snake_case too, in JSON bodies and in query parameters alike.
public enum ProtoJSONName {
    /// The snake_case spelling of a lowerCamelCase name: `pageToken` → `page_token`.
    public static func snakeCase(_ lowerCamelCase: String) -> String {
        var result = ""
        for character in lowerCamelCase {
            if character.isUppercase {
                result.append("_")
                result.append(contentsOf: character.lowercased())
            } else {
                result.append(character)
            }
        }
        return result
    }
}
