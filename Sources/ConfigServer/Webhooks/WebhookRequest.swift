import ConfigStore
import Foundation

/// The body of a webhook's create or update call, checked field by field: each problem is a
/// 400 that names the field, and changes nothing.
struct WebhookRequest {
    static let fields: Set = ["url", "description", "events"]
    static let maxDescription = 500
    /// Event types an endpoint may want: all of them.
    static let eventTypes = WebhookEventType.allCases.map(\.rawValue)

    var url: String?
    var description: String?
    var events: [String]?

    /// - Parameter requireAll: a create needs `url` and `events`.
    init(body: [UInt8], requireAll: Bool) throws(APIError) {
        let object = try Self.object(body, allowed: Self.fields, what: "a webhook")
        url = try Self.string(object["url"], field: "url")
        description = try Self.string(object["description"], field: "description")
        if let description, description.count > Self.maxDescription {
            throw APIError.badRequest("description must be at most \(Self.maxDescription) characters.")
        }
        if let value = object["events"] {
            guard let list = value as? [Any], !list.isEmpty, list.allSatisfy({ $0 is String }) else {
                throw APIError.badRequest("events must be a non-empty array of event types (\(Self.eventTypes.joined(separator: ", "))).")
            }
            var events: [String] = []
            for case let event as String in list where !events.contains(event) {
                guard Self.eventTypes.contains(event) else {
                    throw APIError.badRequest("events: '\(event)' is not an event type; use \(Self.eventTypes.joined(separator: ", ")).")
                }
                events.append(event)
            }
            self.events = events
        }
        if requireAll {
            guard url != nil else { throw APIError.badRequest("url is required.") }
            guard events != nil else { throw APIError.badRequest("events is required: the event types the endpoint wants.") }
        }
    }

    /// A JSON object holding only `allowed` members (an empty body is an empty object).
    static func object(_ body: [UInt8], allowed: Set<String>, what: String) throws(APIError) -> [String: Any] {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return [:] }
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(body)) else {
            throw APIError.badRequest("The request body is not valid JSON.")
        }
        guard let object = parsed as? [String: Any] else { throw APIError.badRequest("The request body must be a JSON object.") }
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIError.badRequest("Unknown field '\(unknown)' in \(what); it has \(allowed.sorted().joined(separator: ", ")).")
        }
        return object
    }

    private static func string(_ value: Any?, field: String) throws(APIError) -> String? {
        guard let value else { return nil }
        guard let text = value as? String else { throw APIError.badRequest("\(field) must be a string.") }
        return text
    }

    /// `url` checked: its form at once, and, where its host is a literal address, that address.
    /// A host name is resolved and checked by `checkResolved` (blocking, off the loop).
    static func check(url: String, allowPrivate: Bool) throws(APIError) -> WebhookAddress {
        do {
            let address = try WebhookAddress(url: url)
            if address.hostIsAddress { _ = try address.checkedAddresses(allowPrivate: allowPrivate) }
            return address
        } catch {
            throw APIError.badRequest(error.message)
        }
    }

    /// The host's addresses checked now (blocking: DNS).
    static func checkResolved(_ address: WebhookAddress, allowPrivate: Bool) throws(APIError) {
        do {
            _ = try address.checkedAddresses(allowPrivate: allowPrivate)
        } catch {
            throw APIError.badRequest(error.message)
        }
    }
}
