import ConfigStore
import Foundation
import ServerCore

/// What follows an attempt (docs/webhooks.md, "Retries"): a 2xx delivers; anything else is
/// tried again after a wait that doubles from `retryBaseSeconds` up to `retryMaxDelaySeconds`,
/// until `retryWindowSeconds` after the event (or its redelivery), when the delivery fails.
struct WebhookRetryPolicy: Sendable {
    let base: TimeInterval
    let maxDelay: TimeInterval
    let window: TimeInterval

    init(_ settings: WebhookSettings) {
        base = settings.retryBaseSeconds
        maxDelay = settings.retryMaxDelaySeconds
        window = settings.retryWindowSeconds
    }

    /// The delivery's state after its `attemptCount`th attempt (this one included) ended at
    /// `now` with `status`, and when it is due again.
    func next(
        status: Int?, attemptCount: Int, windowStart: Date, now: Date
    ) -> (state: WebhookDelivery.State, nextAttempt: Date) {
        if let status, (200..<300).contains(status) { return (.delivered, now) }
        let doublings = Double(min(max(attemptCount - 1, 0), 62))
        let retry = now.addingTimeInterval(min(base * pow(2, doublings), maxDelay))
        return retry > windowStart.addingTimeInterval(window) ? (.failed, now) : (.pending, retry)
    }
}
