import ConfigCore
import ConfigStore

/// The webhook API's answers.
extension WebhookAdminEndpoint {
    /// An endpoint as the API shows it: its secret only in the answer that made it.
    struct EndpointJSON: Encodable {
        let id: String
        let url: String
        let description: String
        let events: [String]
        let createTime: Timestamp
        let updateTime: Timestamp
        /// Until when the secret a rotation replaced still signs.
        let previousSecretExpireTime: Timestamp?
        let secret: String?

        init(_ endpoint: StoredWebhook, showingSecret: Bool = false) {
            id = endpoint.id
            url = endpoint.url
            description = endpoint.description
            events = endpoint.events
            createTime = Timestamp(endpoint.createTime)
            updateTime = Timestamp(endpoint.updateTime)
            previousSecretExpireTime = endpoint.signingSecrets(at: endpoint.updateTime).count > 1
                ? endpoint.previousSecretExpireTime.map(Timestamp.init) : nil
            secret = showingSecret ? endpoint.secret : nil
        }
    }

    struct DeliveryPage: Encodable {
        let deliveries: [DeliveryJSON]
        let nextPageToken: String?
    }

    /// A delivery and its attempts, oldest first.
    struct DeliveryJSON: Encodable {
        struct Attempt: Encodable {
            let time: Timestamp
            let status: Int?
            let latencyMs: Int64
            let response: String
            let error: String?
        }

        let id: String
        let eventId: String
        let eventType: String
        let state: String
        let attemptCount: Int
        /// When it is tried again, while pending.
        let nextAttemptTime: Timestamp?
        let createTime: Timestamp
        let attempts: [Attempt]

        init(_ delivery: WebhookDelivery) {
            id = "\(delivery.id)"
            eventId = delivery.eventID
            eventType = delivery.eventType
            state = delivery.state.rawValue
            attemptCount = delivery.attemptCount
            nextAttemptTime = delivery.state == .pending ? Timestamp(delivery.nextAttemptTime) : nil
            createTime = Timestamp(delivery.createTime)
            attempts = delivery.attempts.map {
                Attempt(time: Timestamp($0.time), status: $0.status, latencyMs: $0.latencyMilliseconds, response: $0.response,
                        error: $0.error)
            }
        }
    }
}
