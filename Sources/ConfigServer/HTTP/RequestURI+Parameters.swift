import ConfigCore
import HTTP1

extension RequestURI {
    /// The first value of query parameter `name`, spelled as given (lowerCamelCase, such as
    /// `pageToken`) or else in snake_case (`page_token`): Google's APIs accept both spellings,
    /// and the camelCase one wins when a request sends both.
    func parameter(_ name: String) -> String? {
        self[name] ?? self[ProtoJSONName.snakeCase(name)]
    }
}
