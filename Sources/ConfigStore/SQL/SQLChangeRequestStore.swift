package import ConfigCore
package import Foundation

/// `ChangeRequestStore`, written once for every engine. Nothing is announced: requests are read
/// from the store each time.
package struct SQLChangeRequestStore<Engine: DatabaseEngine>: ChangeRequestStore {
    let engine: Engine

    package init(engine: Engine) {
        self.engine = engine
    }

    package func insert(
        _ request: StoredChangeRequest, events: @Sendable (StoredChangeRequest) -> [WebhookEvent]
    ) throws(StoreError) -> StoredChangeRequest {
        let now = StoreValue.integer(TemplateStoreRules.milliseconds(engine.clock()))
        let id = try engine.write(announcing: .none) { connection in
            let id = try connection.rows(
                """
                INSERT INTO change_requests (project, namespace, status, schedule_time, revision, record, create_time, update_time)
                VALUES (?, ?, ?, ?, 1, ?, ?, ?) RETURNING id
                """,
                [.text(request.project), .text(request.namespace.rawValue), .text(request.status), Self.scheduleTime(request),
                 .bytes(request.record), now, now]
            ) { $0.int64(at: 0) }.first ?? 0
            var inserted = request
            inserted.id = id
            for event in events(inserted) { try connection.insertEvent(event) }
            return id
        }
        guard let stored = try self.request(id: id) else { throw StoreError.unavailable("change request \(id) vanished") }
        return stored
    }

    package func request(id: Int64) throws(StoreError) -> StoredChangeRequest? {
        try engine.read { connection in
            try connection.rows("SELECT \(StoreColumns.changeRequest) FROM change_requests WHERE id = ?", [.integer(id)]) {
                try StoreColumns.decodeChangeRequest($0)
            }.first
        }
    }

    package func requests(
        project: String, namespace: TemplateNamespace, status: String?, limit: Int
    ) throws(StoreError) -> [StoredChangeRequest] {
        let statusCondition = status == nil ? "" : " AND status = ?"
        let values: [StoreValue] = [.text(project), .text(namespace.rawValue)] + (status.map { [.text($0)] } ?? [])
            + [.integer(Int64(limit))]
        return try engine.read { connection in
            try connection.rows(
                """
                SELECT \(StoreColumns.changeRequest) FROM change_requests
                WHERE project = ? AND namespace = ?\(statusCondition) ORDER BY id DESC LIMIT ?
                """, values) { try StoreColumns.decodeChangeRequest($0) }
        }
    }

    package func update(
        _ request: StoredChangeRequest, expectedRevision: Int64, events: [WebhookEvent]
    ) throws(StoreError) -> StoredChangeRequest? {
        let now = TemplateStoreRules.milliseconds(engine.clock())
        let updated = try engine.write(announcing: .none) { connection in
            let written = try connection.run(
                """
                UPDATE change_requests SET status = ?, schedule_time = ?, record = ?, revision = revision + 1, update_time = ?
                WHERE id = ? AND revision = ?
                """,
                [.text(request.status), Self.scheduleTime(request), .bytes(request.record), .integer(now), .integer(request.id),
                 .integer(expectedRevision)]) == 1
            if written { for event in events { try connection.insertEvent(event) } }
            return written
        }
        return updated ? try self.request(id: request.id) : nil
    }

    package func due(at now: Date) throws(StoreError) -> [StoredChangeRequest] {
        try engine.read { connection in
            try connection.rows(
                """
                SELECT \(StoreColumns.changeRequest) FROM change_requests
                WHERE status = '\(ChangeRequestStatus.scheduled.rawValue)' AND schedule_time <= ? ORDER BY schedule_time, id
                """,
                [.integer(TemplateStoreRules.milliseconds(now))]) { try StoreColumns.decodeChangeRequest($0) }
        }
    }

    private static func scheduleTime(_ request: StoredChangeRequest) -> StoreValue {
        .integer(request.scheduleTime.map(TemplateStoreRules.milliseconds))
    }
}
