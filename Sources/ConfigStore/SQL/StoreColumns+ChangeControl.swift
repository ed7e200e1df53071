/// The columns of change control, shared by both engines.
extension StoreColumns {
    /// Of `change_requests`.
    package static let changeRequest =
        "id, project, namespace, status, schedule_time, revision, applied_version, record, create_time, update_time"

    /// `ChangeRequestStatus.completableByPublish` as an SQL list.
    package static let completableStatuses = ChangeRequestStatus.completableByPublish.map { "'\($0.rawValue)'" }
        .joined(separator: ", ")

    /// A row of `changeRequest`.
    package static func decodeChangeRequest(_ row: some StoreRow) throws(StoreError) -> StoredChangeRequest {
        StoredChangeRequest(
            id: row.int64(at: 0), project: row.text(at: 1), namespace: try namespace(row.text(at: 2)), status: row.text(at: 3),
            scheduleTime: row.optionalInt64(at: 4).map(TemplateStoreRules.date(milliseconds:)), revision: row.int64(at: 5),
            appliedVersion: row.optionalInt64(at: 6), record: row.bytes(at: 7),
            createTime: TemplateStoreRules.date(milliseconds: row.int64(at: 8)),
            updateTime: TemplateStoreRules.date(milliseconds: row.int64(at: 9)))
    }

    /// Of `change_policies`.
    package static let changePolicy = "project, namespace, record"

    /// A row of `changePolicy`.
    package static func decodeChangePolicy(_ row: some StoreRow) throws(StoreError) -> StoredChangePolicy {
        StoredChangePolicy(project: row.text(at: 0), namespace: try namespace(row.text(at: 1)), record: row.bytes(at: 2))
    }
}
