public import Foundation

/// The webhook endpoints of the projects, and the outbox their events leave from
/// (docs/webhooks.md): `ConfigDatabase.webhooks`. No worker keeps them in memory: nothing is
/// announced.
///
/// - **Outbox.** Events are written in the transaction of the change they report
///   (`StoreConnection.insertEvent`, or `appendEvent` for a change of its own), with one
///   pending delivery per endpoint that wants them: a crash neither loses nor invents one.
/// - **Once per cluster.** `claimDeliveries` leases each due delivery to one caller, on any
///   worker of any node, until the lease expires or `recordAttempt` ends it.
public protocol WebhookStore: Sendable {
    // MARK: Endpoints

    /// - Throws: `projectNotFound`, `invalidArgument` for an id already taken.
    func createWebhook(_ endpoint: StoredWebhook) throws(StoreError)

    /// Replaces the endpoint with `endpoint.id` in `endpoint.project` (all but its create
    /// time); whether it existed.
    func updateWebhook(_ endpoint: StoredWebhook) throws(StoreError) -> Bool

    /// Deletes the endpoint with its deliveries and their log; whether it existed.
    func deleteWebhook(project: String, id: String) throws(StoreError) -> Bool

    /// The endpoints of `project`, oldest first.
    func webhooks(project: String) throws(StoreError) -> [StoredWebhook]

    // MARK: Events

    /// Writes `event` in a transaction of its own, for a change made outside any template
    /// write; delivered to every endpoint of its project that wants its type (none: nothing is
    /// written).
    func appendEvent(_ event: WebhookEvent) throws(StoreError)

    /// Writes `event` for one endpoint of `project`, whatever it wants ("send a test event").
    /// - Returns: the delivery's id, nil when the project has no such endpoint.
    func appendTestEvent(_ event: WebhookEvent, project: String, endpointID: String) throws(StoreError) -> Int64?

    // MARK: Delivering

    /// When the next pending delivery becomes due (its time, or its lease's end), nil when none
    /// is pending: a cheap read to poll.
    func nextAttemptTime() throws(StoreError) -> Date?

    /// Leases at most `limit` due deliveries to `owner` for `leaseDuration`, oldest due first;
    /// no other caller gets them until the lease ends or `recordAttempt` ends it.
    func claimDeliveries(owner: String, limit: Int, leaseDuration: TimeInterval) throws(StoreError) -> [ClaimedDelivery]

    /// Keeps `body` as the event's payload unless one is kept already (every attempt then
    /// sends the same bytes).
    func setEventBody(eventID: String, body: [UInt8]) throws(StoreError)

    /// Logs an attempt, ends the lease and moves the delivery to `state` (when pending, due at
    /// `nextAttemptTime`).
    func recordAttempt(
        deliveryID: Int64, _ attempt: WebhookAttempt, state: WebhookDelivery.State, nextAttemptTime: Date
    ) throws(StoreError)

    // MARK: Delivery log

    /// The deliveries to an endpoint, newest first, with their attempts.
    /// - Throws: `invalidArgument` for a page size out of 1...1000, `invalidPageToken`.
    func deliveries(
        endpointID: String, pageSize: Int, pageToken: String?
    ) throws(StoreError) -> (deliveries: [WebhookDelivery], nextPageToken: String?)

    /// Makes a delivery pending and due now, with a new retry window; whether it exists.
    func redeliver(endpointID: String, deliveryID: Int64) throws(StoreError) -> Bool

    /// Removes the events older than `cutoff` that nothing waits to deliver, with their
    /// deliveries and log; how many.
    @discardableResult
    func pruneEvents(before cutoff: Date) throws(StoreError) -> Int
}
