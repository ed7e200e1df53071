public import ConfigCore
public import Foundation

/// Approval policies and change requests (`change_policies`, `change_requests`).
extension SQLiteTemplateStore {
    public func putChangePolicy(_ policy: StoredChangePolicy) throws(StoreError) {
        let now = TemplateStoreRules.milliseconds(clock())
        try write { database in
            try database.execute(
                """
                INSERT INTO change_policies (project, namespace, record, update_time) VALUES (?, ?, ?, ?)
                ON CONFLICT (project, namespace) DO UPDATE SET record = excluded.record, update_time = excluded.update_time
                """,
                [.text(policy.project), .text(policy.namespace.rawValue), .blob(policy.record), .integer(now)])
        }
    }

    public func changePolicies() throws(StoreError) -> [StoredChangePolicy] {
        try read { database in
            try database.query("SELECT \(StoreColumns.changePolicy) FROM change_policies ORDER BY project, namespace") {
                try StoreColumns.decodeChangePolicy($0)
            }
        }
    }

    public func insertChangeRequest(
        _ request: StoredChangeRequest, events: @Sendable (StoredChangeRequest) -> [WebhookEvent]
    ) throws(StoreError) -> StoredChangeRequest {
        let now = clock()
        let id = try write { database in
            let id = try database.queryFirst(
                """
                INSERT INTO change_requests (project, namespace, status, schedule_time, revision, record, create_time, update_time)
                VALUES (?, ?, ?, ?, 1, ?, ?, ?) RETURNING id
                """,
                [.text(request.project), .text(request.namespace.rawValue), .text(request.status),
                 request.scheduleTime.map { .integer(TemplateStoreRules.milliseconds($0)) } ?? .null, .blob(request.record),
                 .integer(TemplateStoreRules.milliseconds(now)), .integer(TemplateStoreRules.milliseconds(now))]
            ) { $0.int64(at: 0) } ?? 0
            var inserted = request
            inserted.id = id
            for event in events(inserted) { try SQLiteTemplateConnection(database: database).insertEvent(event) }
            return id
        }
        guard let stored = try changeRequest(id: id) else { throw StoreError.unavailable("change request \(id) vanished") }
        return stored
    }

    public func changeRequest(id: Int64) throws(StoreError) -> StoredChangeRequest? {
        try read { database in
            try database.queryFirst("SELECT \(StoreColumns.changeRequest) FROM change_requests WHERE id = ?", [.integer(id)]) {
                try StoreColumns.decodeChangeRequest($0)
            }
        }
    }

    public func changeRequests(
        project: String, namespace: TemplateNamespace, status: String?, limit: Int
    ) throws(StoreError) -> [StoredChangeRequest] {
        try read { database in
            try database.query(
                """
                SELECT \(StoreColumns.changeRequest) FROM change_requests
                WHERE project = ? AND namespace = ? AND (? IS NULL OR status = ?) ORDER BY id DESC LIMIT ?
                """,
                [.text(project), .text(namespace.rawValue), .text(status), .text(status), .integer(Int64(limit))]
            ) { try StoreColumns.decodeChangeRequest($0) }
        }
    }

    public func updateChangeRequest(
        _ request: StoredChangeRequest, expectedRevision: Int64, events: [WebhookEvent]
    ) throws(StoreError) -> StoredChangeRequest? {
        let now = TemplateStoreRules.milliseconds(clock())
        let updated = try write { database in
            let written = try database.execute(
                """
                UPDATE change_requests SET status = ?, schedule_time = ?, record = ?, revision = revision + 1, update_time = ?
                WHERE id = ? AND revision = ?
                """,
                [.text(request.status), request.scheduleTime.map { .integer(TemplateStoreRules.milliseconds($0)) } ?? .null,
                 .blob(request.record), .integer(now), .integer(request.id), .integer(expectedRevision)]) == 1
            if written { for event in events { try SQLiteTemplateConnection(database: database).insertEvent(event) } }
            return written
        }
        return updated ? try changeRequest(id: request.id) : nil
    }

    public func dueChangeRequests(now: Date) throws(StoreError) -> [StoredChangeRequest] {
        try read { database in
            try database.query(
                """
                SELECT \(StoreColumns.changeRequest) FROM change_requests
                WHERE status = 'scheduled' AND schedule_time <= ? ORDER BY schedule_time, id
                """,
                [.integer(TemplateStoreRules.milliseconds(now))]
            ) { try StoreColumns.decodeChangeRequest($0) }
        }
    }
}
