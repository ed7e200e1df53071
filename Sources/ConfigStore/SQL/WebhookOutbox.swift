package import Foundation

/// `WebhookStore`, written once for every engine over its connections (as `TemplateVersioning`
/// is for templates): the SQL is `WebhookOutboxSQL`'s and `StoreStatements`'. No write is
/// announced: no worker keeps endpoints or deliveries in memory.
package struct WebhookOutbox<Engine: DatabaseEngine>: WebhookStore {
    let engine: Engine

    package init(engine: Engine) {
        self.engine = engine
    }

    /// "Now" for due times, leases and redeliveries.
    private var now: Int64 { TemplateStoreRules.milliseconds(engine.clock()) }

    // MARK: Endpoints

    package func createWebhook(_ endpoint: StoredWebhook) throws(StoreError) {
        try engine.write(announcing: .none) { connection in
            try connection.requireProject(endpoint.project)
            let taken = try connection.rows("SELECT 1 FROM webhook_endpoints WHERE id = ?", [.text(endpoint.id)]) { _ in true }
            guard taken.isEmpty else { throw StoreError.invalidArgument("webhook id '\(endpoint.id)' is taken") }
            try connection.run(
                """
                INSERT INTO webhook_endpoints (url, description, events, secret, previous_secret,
                    previous_secret_expire_time, update_time, id, project, create_time)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                WebhookOutboxSQL.mutableValues(endpoint)
                    + [.text(endpoint.id), .text(endpoint.project), .integer(TemplateStoreRules.milliseconds(endpoint.createTime))])
        }
    }

    package func updateWebhook(_ endpoint: StoredWebhook) throws(StoreError) -> Bool {
        try engine.write(announcing: .none) { connection in
            try connection.run(
                """
                UPDATE webhook_endpoints SET url = ?, description = ?, events = ?, secret = ?, previous_secret = ?,
                    previous_secret_expire_time = ?, update_time = ?
                WHERE id = ? AND project = ?
                """,
                WebhookOutboxSQL.mutableValues(endpoint) + [.text(endpoint.id), .text(endpoint.project)]) > 0
        }
    }

    package func deleteWebhook(project: String, id: String) throws(StoreError) -> Bool {
        try engine.write(announcing: .none) { connection in
            try connection.run("DELETE FROM webhook_endpoints WHERE id = ? AND project = ?", [.text(id), .text(project)]) > 0
        }
    }

    package func webhooks(project: String) throws(StoreError) -> [StoredWebhook] {
        try engine.read { connection in
            try connection.rows(
                "SELECT \(WebhookOutboxSQL.endpoint) FROM webhook_endpoints w WHERE w.project = ? ORDER BY w.create_time, w.id",
                [.text(project)]) { WebhookOutboxSQL.decodeEndpoint($0) }
        }
    }

    // MARK: Events

    package func appendEvent(_ event: WebhookEvent) throws(StoreError) {
        try engine.write(announcing: .none) { connection in try connection.insertEvent(event) }
    }

    package func appendTestEvent(_ event: WebhookEvent, project: String, endpointID: String) throws(StoreError) -> Int64? {
        let time = StoreValue.integer(TemplateStoreRules.milliseconds(event.time))
        return try engine.write(announcing: .none) { connection in
            let found = try connection.rows(
                "SELECT 1 FROM webhook_endpoints WHERE id = ? AND project = ?", [.text(endpointID), .text(project)]) { _ in true }
            guard !found.isEmpty else { return nil }
            try WebhookOutboxSQL.insertRow(event, on: connection)
            return try connection.rows(
                """
                INSERT INTO webhook_deliveries (event_id, endpoint_id, state, next_attempt_time, window_start_time, create_time)
                VALUES (?, ?, 'pending', ?, ?, ?) RETURNING id
                """,
                [.text(event.id), .text(endpointID), time, time, time]) { $0.int64(at: 0) }.first
        }
    }

    // MARK: Delivering

    package func nextAttemptTime() throws(StoreError) -> Date? {
        let due = try engine.read { connection in
            try connection.rows(
                """
                SELECT min(CASE WHEN lease_expire_time > next_attempt_time THEN lease_expire_time ELSE next_attempt_time END)
                FROM webhook_deliveries WHERE state = 'pending'
                """, []) { $0.optionalInt64(at: 0) }
        }
        return due.first.flatMap { $0 }.map(TemplateStoreRules.date(milliseconds:))
    }

    package func claimDeliveries(
        owner: String, limit: Int, leaseDuration: TimeInterval
    ) throws(StoreError) -> [ClaimedDelivery] {
        let now = now
        let leaseEnd = now + Int64(leaseDuration * 1000)
        return try engine.write(announcing: .none) { connection in
            let ids = try connection.rows(
                """
                SELECT id FROM webhook_deliveries
                WHERE state = 'pending' AND next_attempt_time <= ? AND lease_expire_time <= ?
                ORDER BY next_attempt_time, id LIMIT ?\(Engine.Connection.claimingClause)
                """,
                [.integer(now), .integer(now), .integer(Int64(limit))]) { $0.int64(at: 0) }
            guard !ids.isEmpty else { return [] }
            // Integers only: written into the statement, one shape per batch size.
            let list = ids.map(String.init).joined(separator: ", ")
            try connection.run(
                "UPDATE webhook_deliveries SET lease_owner = ?, lease_expire_time = ? WHERE id IN (\(list))",
                [.text(owner), .integer(leaseEnd)])
            return try connection.rows(
                """
                SELECT \(WebhookOutboxSQL.delivery), \(WebhookOutboxSQL.event), \(WebhookOutboxSQL.endpoint)
                FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
                JOIN webhook_endpoints w ON w.id = d.endpoint_id
                WHERE d.id IN (\(list)) ORDER BY d.next_attempt_time, d.id
                """, []
            ) { row in
                ClaimedDelivery(delivery: try WebhookOutboxSQL.decodeDelivery(row), event: try WebhookOutboxSQL.decodeEvent(row, from: 9),
                                endpoint: WebhookOutboxSQL.decodeEndpoint(row, from: 18))
            }
        }
    }

    package func setEventBody(eventID: String, body: [UInt8]) throws(StoreError) {
        try engine.write(announcing: .none) { connection in
            try connection.run("UPDATE webhook_events SET body = ? WHERE id = ? AND body IS NULL", [.bytes(body), .text(eventID)])
        }
    }

    package func recordAttempt(
        deliveryID: Int64, _ attempt: WebhookAttempt, state: WebhookDelivery.State, nextAttemptTime: Date
    ) throws(StoreError) {
        try engine.write(announcing: .none) { connection in
            try connection.run(
                "INSERT INTO webhook_attempts (delivery_id, time, status, latency_ms, response, error) VALUES (?, ?, ?, ?, ?, ?)",
                [.integer(deliveryID), .integer(TemplateStoreRules.milliseconds(attempt.time)),
                 .integer(attempt.status.map(Int64.init)), .integer(attempt.latencyMilliseconds), .text(attempt.response),
                 .text(attempt.error)])
            try connection.run(
                """
                UPDATE webhook_deliveries SET state = ?, attempt_count = attempt_count + 1, next_attempt_time = ?,
                    lease_owner = NULL, lease_expire_time = 0
                WHERE id = ?
                """,
                [.text(state.rawValue), .integer(TemplateStoreRules.milliseconds(nextAttemptTime)), .integer(deliveryID)])
        }
    }

    // MARK: Delivery log

    package func deliveries(
        endpointID: String, pageSize: Int, pageToken: String?
    ) throws(StoreError) -> (deliveries: [WebhookDelivery], nextPageToken: String?) {
        let (size, before) = try TemplateStoreRules.idPage(size: pageSize, token: pageToken, prefix: "d")
        let deliveries = try engine.read { connection in
            var deliveries = try connection.rows(
                """
                SELECT \(WebhookOutboxSQL.delivery) FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
                WHERE d.endpoint_id = ? AND d.id < ? ORDER BY d.id DESC LIMIT ?
                """,
                [.text(endpointID), .integer(before), .integer(Int64(size) + 1)]) { try WebhookOutboxSQL.decodeDelivery($0) }
            guard let oldest = deliveries.last?.id, let newest = deliveries.first?.id else { return deliveries }
            let attempts = try connection.rows(
                """
                SELECT \(WebhookOutboxSQL.attempt) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
                WHERE d.endpoint_id = ? AND a.delivery_id BETWEEN ? AND ? ORDER BY a.id
                """,
                [.text(endpointID), .integer(oldest), .integer(newest)]) { WebhookOutboxSQL.decodeAttempt($0) }
            let byDelivery = Dictionary(grouping: attempts, by: \.delivery)
            for index in deliveries.indices {
                deliveries[index].attempts = byDelivery[deliveries[index].id]?.map(\.attempt) ?? []
            }
            return deliveries
        }
        return TemplateStoreRules.idPage(deliveries, size: size, prefix: "d", id: \.id)
    }

    package func redeliver(endpointID: String, deliveryID: Int64) throws(StoreError) -> Bool {
        let now = now
        return try engine.write(announcing: .none) { connection in
            try connection.run(
                """
                UPDATE webhook_deliveries SET state = 'pending', next_attempt_time = ?, window_start_time = ?
                WHERE id = ? AND endpoint_id = ?
                """,
                [.integer(now), .integer(now), .integer(deliveryID), .text(endpointID)]) > 0
        }
    }

    @discardableResult
    package func pruneEvents(before cutoff: Date) throws(StoreError) -> Int {
        try engine.write(announcing: .none) { connection in
            try connection.run(
                """
                DELETE FROM webhook_events WHERE time < ? AND NOT EXISTS (
                    SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id AND d.state = 'pending')
                """,
                [.integer(TemplateStoreRules.milliseconds(cutoff))])
        }
    }
}
