import ConfigCore
package import Foundation
import HTTP1

extension RequestURI {
    /// The first value of query parameter `name`, spelled as given (lowerCamelCase, such as
    /// `pageToken`) or else in snake_case (`page_token`): Google's APIs accept both spellings,
    /// and the camelCase one wins when a request sends both.
    package func parameter(_ name: String) -> String? {
        self[name] ?? self[ProtoJSONName.snakeCase(name)]
    }

    /// `pageSize`: an integer in `range`, `defaultSize` when absent; else a 400 that says so.
    package func pageSize(in range: ClosedRange<Int>, default defaultSize: Int = 100) throws -> Int {
        try integer("pageSize", in: range) ?? defaultSize
    }

    /// Query parameter `name` as an integer in `range`, nil when absent; else a 400 that says so.
    package func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = parameter(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.badRequest("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), got '\(text)'.")
        }
        return value
    }

    /// Query parameter `name` as an RFC 3339 time, nil when absent; else a 400 naming it.
    package func time(_ name: String) throws -> Date? {
        guard let text = parameter(name) else { return nil }
        guard let time = Timestamp(rfc3339: text) else {
            throw APIError.badRequest("\(name) must be an RFC 3339 timestamp, got '\(text)'.")
        }
        return time.date
    }
}
