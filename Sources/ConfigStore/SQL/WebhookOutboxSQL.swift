import ConfigCore
import Foundation

/// The webhook tables' columns and rows, and the outbox insert that any write transaction may
/// run (`StoreConnection.insertEvent`): SQL both engines read the same.
package enum WebhookOutboxSQL {
    /// Of `webhook_endpoints w`.
    static let endpoint = "w.id, w.project, w.url, w.description, w.events, w.secret, w.previous_secret, "
        + "w.previous_secret_expire_time, w.create_time, w.update_time"

    /// Of `webhook_events e`.
    static let event = "e.id, e.type, e.project, e.namespace, e.time, e.details, e.data, e.diff_from, e.body"

    /// Of `webhook_deliveries d` joined with its event `e`.
    static let delivery = "d.id, d.endpoint_id, d.event_id, e.type, d.state, d.attempt_count, d.next_attempt_time, "
        + "d.window_start_time, d.create_time"

    /// Of `webhook_attempts a`.
    static let attempt = "a.delivery_id, a.time, a.status, a.latency_ms, a.response, a.error"

    /// `events` as stored: each type between spaces.
    static func storedEvents(_ events: [String]) -> String { " " + events.joined(separator: " ") + " " }

    /// The `LIKE` pattern of the endpoints that want `type` (types hold no `%` or `_`).
    static func wanting(_ type: String) -> StoreValue { .text("% \(type) %") }

    /// The values of `endpoint`'s columns but its create time, in `endpoint`'s order from `url`.
    static func mutableValues(_ endpoint: StoredWebhook) -> [StoreValue] {
        [.text(endpoint.url), .text(endpoint.description), .text(storedEvents(endpoint.events)), .text(endpoint.secret),
         .text(endpoint.previousSecret), .integer(endpoint.previousSecretExpireTime.map(TemplateStoreRules.milliseconds)),
         .integer(TemplateStoreRules.milliseconds(endpoint.updateTime))]
    }

    /// A row of `endpoint` starting at `first`.
    static func decodeEndpoint(_ row: some StoreRow, from first: Int = 0) -> StoredWebhook {
        StoredWebhook(
            id: row.text(at: first), project: row.text(at: first + 1), url: row.text(at: first + 2),
            description: row.text(at: first + 3), events: row.text(at: first + 4).split(separator: " ").map(String.init),
            secret: row.text(at: first + 5), previousSecret: row.optionalText(at: first + 6),
            previousSecretExpireTime: row.optionalInt64(at: first + 7).map(TemplateStoreRules.date(milliseconds:)),
            createTime: TemplateStoreRules.date(milliseconds: row.int64(at: first + 8)),
            updateTime: TemplateStoreRules.date(milliseconds: row.int64(at: first + 9)))
    }

    /// A row of `event` starting at `first`.
    static func decodeEvent(_ row: some StoreRow, from first: Int = 0) throws -> WebhookEvent {
        func blob(_ column: Int) -> [UInt8]? { row.isNull(at: first + column) ? nil : row.bytes(at: first + column) }
        let update = try blob(5).map { try JSONDecoder().decode(WebhookEvent.Update.self, from: Data($0)) }
        return WebhookEvent(
            id: row.text(at: first), type: row.text(at: first + 1), project: row.text(at: first + 2),
            namespace: row.optionalText(at: first + 3), time: TemplateStoreRules.date(milliseconds: row.int64(at: first + 4)),
            update: update, diffFrom: row.optionalInt64(at: first + 7), data: blob(6), body: blob(8))
    }

    /// A row of `delivery` starting at `first`.
    static func decodeDelivery(_ row: some StoreRow, from first: Int = 0) throws(StoreError) -> WebhookDelivery {
        guard let state = WebhookDelivery.State(rawValue: row.text(at: first + 4)) else {
            throw StoreError.unavailable("the database holds an unknown delivery state '\(row.text(at: first + 4))'")
        }
        return WebhookDelivery(
            id: row.int64(at: first), endpointID: row.text(at: first + 1), eventID: row.text(at: first + 2),
            eventType: row.text(at: first + 3), state: state, attemptCount: Int(row.int64(at: first + 5)),
            nextAttemptTime: TemplateStoreRules.date(milliseconds: row.int64(at: first + 6)),
            windowStartTime: TemplateStoreRules.date(milliseconds: row.int64(at: first + 7)),
            createTime: TemplateStoreRules.date(milliseconds: row.int64(at: first + 8)))
    }

    /// A row of `attempt`: its delivery's id and the attempt.
    static func decodeAttempt(_ row: some StoreRow) -> (delivery: Int64, attempt: WebhookAttempt) {
        (row.int64(at: 0), WebhookAttempt(
            time: TemplateStoreRules.date(milliseconds: row.int64(at: 1)), status: row.optionalInt64(at: 2).map { Int($0) },
            latencyMilliseconds: row.int64(at: 3), response: row.text(at: 4), error: row.optionalText(at: 5)))
    }

    /// Inserts `event` and a delivery of it for each endpoint of its project that wants it; no
    /// row at all when none does (one indexed read: a publish costs the same with endpoints or
    /// without).
    static func insert(_ event: WebhookEvent, on connection: some StoreStatements) throws {
        let counted = try connection.rows(
            "SELECT count(*) FROM webhook_endpoints WHERE project = ? AND events LIKE ?",
            [.text(event.project), wanting(event.type)]) { $0.int64(at: 0) }
        guard let count = counted.first, count > 0 else { return }
        try insertRow(event, on: connection)
        let time = StoreValue.integer(TemplateStoreRules.milliseconds(event.time))
        try connection.run(
            """
            INSERT INTO webhook_deliveries (event_id, endpoint_id, state, next_attempt_time, window_start_time, create_time)
            SELECT ?, id, 'pending', ?, ?, ? FROM webhook_endpoints WHERE project = ? AND events LIKE ?
            """,
            [.text(event.id), time, time, time, .text(event.project), wanting(event.type)])
    }

    /// The event's own row.
    static func insertRow(_ event: WebhookEvent, on connection: some StoreStatements) throws {
        let details = event.update.map { Array(TemplateJSON.encode($0)) }
        try connection.run(
            "INSERT INTO webhook_events (id, type, project, namespace, time, details, data, diff_from, body) VALUES ("
                + "?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [.text(event.id), .text(event.type), .text(event.project), .text(event.namespace),
             .integer(TemplateStoreRules.milliseconds(event.time)), .bytes(details), .bytes(event.data),
             .integer(event.diffFrom), .bytes(event.body)])
    }
}
