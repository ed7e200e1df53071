public import ConfigCore
public import Foundation

/// Change requests: `ConfigDatabase.changeRequests`. They are read from the store each time, so
/// their writes are not announced; a publish that applies one marks it applied in its own
/// template transaction (`PublishMetadata.completes`), which is.
public protocol ChangeRequestStore: Sendable {
    /// Keeps a new change request; returns it with its id, revision 1 and times.
    /// - Parameter events: the webhook events it makes, written in the same transaction (given
    ///   the request with its id).
    func insert(
        _ request: StoredChangeRequest, events: @Sendable (StoredChangeRequest) -> [WebhookEvent]
    ) throws(StoreError) -> StoredChangeRequest

    /// One change request, or nil.
    func request(id: Int64) throws(StoreError) -> StoredChangeRequest?

    /// A template's change requests, newest first, at most `limit`, optionally of one status.
    func requests(
        project: String, namespace: TemplateNamespace, status: String?, limit: Int
    ) throws(StoreError) -> [StoredChangeRequest]

    /// Writes `request`'s status, schedule time and record if it is still at `expectedRevision`;
    /// returns it at its next revision, nil when another write came first (nothing written).
    /// `events` are written with it, in the same transaction, only if it is written.
    func update(
        _ request: StoredChangeRequest, expectedRevision: Int64, events: [WebhookEvent]
    ) throws(StoreError) -> StoredChangeRequest?

    /// The `scheduled` requests whose time is `now` or before, oldest time first.
    func due(at now: Date) throws(StoreError) -> [StoredChangeRequest]
}

extension ChangeRequestStore {
    /// `insert` with no webhook event.
    public func insert(_ request: StoredChangeRequest) throws(StoreError) -> StoredChangeRequest {
        try insert(request) { _ in [] }
    }

    /// `update` with no webhook event.
    public func update(_ request: StoredChangeRequest, expectedRevision: Int64) throws(StoreError) -> StoredChangeRequest? {
        try update(request, expectedRevision: expectedRevision, events: [])
    }
}
