import ConfigStore
import Foundation
import ServerCore

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
        let body = try ManagementBody(body, fields: Self.fields)
        url = try body.string("url")
        description = try body.string("description")
        if let description, description.count > Self.maxDescription {
            throw APIError.badRequest("description must be at most \(Self.maxDescription) characters.")
        }
        let eventList = "a non-empty array of event types (\(Self.eventTypes.joined(separator: ", ")))"
        if let list = try body.strings("events", describing: eventList) {
            guard !list.isEmpty else { throw APIError.badRequest("'events' must be \(eventList).") }
            var events: [String] = []
            for event in list where !events.contains(event) {
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
