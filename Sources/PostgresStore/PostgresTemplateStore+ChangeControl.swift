public import ConfigCore
public import ConfigStore
public import Foundation

/// Approval policies and change requests (`change_policies`, `change_requests`). A policy write
/// notifies `projects` (every worker keeps the policies in memory); requests are read from the
/// store each time, so their writes announce nothing.
extension PostgresTemplateStore {
    public func putChangePolicy(_ policy: StoredChangePolicy) throws(StoreError) {
        let now = TemplateStoreRules.milliseconds(clock())
        try write { connection in
            try connection.execute(
                """
                INSERT INTO change_policies (project, namespace, record, update_time) VALUES ($1, $2, $3, $4)
                ON CONFLICT (project, namespace) DO UPDATE SET record = excluded.record, update_time = excluded.update_time
                """,
                [.text(policy.project), .text(policy.namespace.rawValue), .bytes(policy.record), .integer(now)])
            return ((), .projects)
        }
    }

    public func changePolicies() throws(StoreError) -> [StoredChangePolicy] {
        try read { connection in
            try connection.query("SELECT \(StoreColumns.changePolicy) FROM change_policies ORDER BY project, namespace") {
                try StoreColumns.decodeChangePolicy($0)
            }
        }
    }

    public func insertChangeRequest(
        _ request: StoredChangeRequest, events: @Sendable (StoredChangeRequest) -> [WebhookEvent]
    ) throws(StoreError) -> StoredChangeRequest {
        let now = TemplateStoreRules.milliseconds(clock())
        let id = try writeUnannounced { connection in
            let id = try connection.connection.queryFirst(
                """
                INSERT INTO change_requests (project, namespace, status, schedule_time, revision, record, create_time, update_time)
                VALUES ($1, $2, $3, $4, 1, $5, $6, $6) RETURNING id
                """,
                [.text(request.project), .text(request.namespace.rawValue), .text(request.status),
                 request.scheduleTime.map { .integer(TemplateStoreRules.milliseconds($0)) } ?? .null, .bytes(request.record),
                 .integer(now)]
            ) { $0.int64(at: 0) } ?? 0
            var inserted = request
            inserted.id = id
            for event in events(inserted) { try connection.insertEvent(event) }
            return id
        }
        guard let stored = try changeRequest(id: id) else { throw StoreError.unavailable("change request \(id) vanished") }
        return stored
    }

    public func changeRequest(id: Int64) throws(StoreError) -> StoredChangeRequest? {
        try read { connection in
            try connection.queryFirst("SELECT \(StoreColumns.changeRequest) FROM change_requests WHERE id = $1", [.integer(id)]) {
                try StoreColumns.decodeChangeRequest($0)
            }
        }
    }

    public func changeRequests(
        project: String, namespace: TemplateNamespace, status: String?, limit: Int
    ) throws(StoreError) -> [StoredChangeRequest] {
        try read { connection in
            try connection.query(
                """
                SELECT \(StoreColumns.changeRequest) FROM change_requests
                WHERE project = $1 AND namespace = $2 AND ($3::text IS NULL OR status = $3) ORDER BY id DESC LIMIT $4
                """,
                [.text(project), .text(namespace.rawValue), .text(status), .integer(Int64(limit))]
            ) { try StoreColumns.decodeChangeRequest($0) }
        }
    }

    public func updateChangeRequest(
        _ request: StoredChangeRequest, expectedRevision: Int64, events: [WebhookEvent]
    ) throws(StoreError) -> StoredChangeRequest? {
        let now = TemplateStoreRules.milliseconds(clock())
        let updated = try writeUnannounced { templates in
            let written = try templates.connection.execute(
                """
                UPDATE change_requests SET status = $1, schedule_time = $2, record = $3, revision = revision + 1, update_time = $4
                WHERE id = $5 AND revision = $6
                """,
                [.text(request.status), request.scheduleTime.map { .integer(TemplateStoreRules.milliseconds($0)) } ?? .null,
                 .bytes(request.record), .integer(now), .integer(request.id), .integer(expectedRevision)]
            ).affectedRows == 1
            if written { for event in events { try templates.insertEvent(event) } }
            return written
        }
        return updated ? try changeRequest(id: request.id) : nil
    }

    public func dueChangeRequests(now: Date) throws(StoreError) -> [StoredChangeRequest] {
        try read { connection in
            try connection.query(
                """
                SELECT \(StoreColumns.changeRequest) FROM change_requests
                WHERE status = 'scheduled' AND schedule_time <= $1 ORDER BY schedule_time, id
                """,
                [.integer(TemplateStoreRules.milliseconds(now))]
            ) { try StoreColumns.decodeChangeRequest($0) }
        }
    }
}
