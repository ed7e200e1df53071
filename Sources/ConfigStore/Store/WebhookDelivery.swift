public import Foundation

/// One event to one endpoint: pending until an attempt is answered with a 2xx (delivered) or
/// the retries end (failed).
public struct WebhookDelivery: Sendable, Equatable {
    public enum State: String, Sendable {
        case pending, delivered, failed
    }

    public var id: Int64
    public var endpointID: String
    public var eventID: String
    public var eventType: String
    public var state: State
    public var attemptCount: Int
    public var nextAttemptTime: Date
    /// Retries end a set time (24 hours) after this: the event's commit, or the last redelivery.
    public var windowStartTime: Date
    public var createTime: Date
    /// The attempts, oldest first (filled by listings, empty in a claim).
    public var attempts: [WebhookAttempt]

    /// - Parameters: see the properties.
    public init(
        id: Int64, endpointID: String, eventID: String, eventType: String, state: State, attemptCount: Int,
        nextAttemptTime: Date, windowStartTime: Date, createTime: Date, attempts: [WebhookAttempt] = []
    ) {
        self.id = id
        self.endpointID = endpointID
        self.eventID = eventID
        self.eventType = eventType
        self.state = state
        self.attemptCount = attemptCount
        self.nextAttemptTime = nextAttemptTime
        self.windowStartTime = windowStartTime
        self.createTime = createTime
        self.attempts = attempts
    }
}

/// One attempt of the delivery log.
public struct WebhookAttempt: Sendable, Equatable {
    public var time: Date
    /// The answer's HTTP status; nil when none came (refused, timed out, unresolvable).
    public var status: Int?
    public var latencyMilliseconds: Int64
    /// The start of the answer's body.
    public var response: String
    public var error: String?

    /// - Parameters: see the properties.
    public init(time: Date, status: Int?, latencyMilliseconds: Int64, response: String, error: String?) {
        self.time = time
        self.status = status
        self.latencyMilliseconds = latencyMilliseconds
        self.response = response
        self.error = error
    }
}

/// A delivery a worker holds the lease of, with what it needs to send it.
public struct ClaimedDelivery: Sendable, Equatable {
    public var delivery: WebhookDelivery
    public var event: WebhookEvent
    public var endpoint: StoredWebhook

    /// - Parameters: see the properties.
    public init(delivery: WebhookDelivery, event: WebhookEvent, endpoint: StoredWebhook) {
        self.delivery = delivery
        self.event = event
        self.endpoint = endpoint
    }
}
