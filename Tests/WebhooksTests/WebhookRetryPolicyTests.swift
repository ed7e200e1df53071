import ConfigStore
import ServerCore
@testable import Webhooks
import Foundation
import Testing

/// What follows an attempt (docs/webhooks.md, "Retries"), by value: 2xx delivers; otherwise the
/// wait doubles from the base up to the cap until the window since the event is over.
@Suite struct WebhookRetryPolicyTests {
    static let policy: WebhookRetryPolicy = {
        var settings = WebhookSettings()
        settings.retryBaseSeconds = 5
        settings.retryMaxDelaySeconds = 60
        settings.retryWindowSeconds = 300
        return WebhookRetryPolicy(settings)
    }()
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: [200, 201, 204, 299])
    func aSuccessfulAnswerDelivers(status: Int) {
        let now = Self.start.addingTimeInterval(10)
        let (state, next) = Self.policy.next(status: status, attemptCount: 3, windowStart: Self.start, now: now)
        #expect(state == .delivered && next == now)
    }

    @Test(arguments: [nil, 199, 300, 404, 500, 503] as [Int?])
    func anythingElseIsTriedAgainAfterTheBase(status: Int?) {
        let (state, next) = Self.policy.next(status: status, attemptCount: 1, windowStart: Self.start, now: Self.start)
        #expect(state == .pending && next == Self.start.addingTimeInterval(5))
    }

    @Test func theWaitDoublesUpToItsCap() {
        let waits = (1...6).map { attempt in
            Self.policy.next(status: 500, attemptCount: attempt, windowStart: Self.start, now: Self.start).nextAttempt
                .timeIntervalSince(Self.start)
        }
        #expect(waits == [5, 10, 20, 40, 60, 60])
        // However many attempts came before, the wait stays the cap (no overflow).
        let late = Self.policy.next(status: 500, attemptCount: 10_000, windowStart: Self.start, now: Self.start)
        #expect(late.state == .pending && late.nextAttempt == Self.start.addingTimeInterval(60))
    }

    @Test func aRetryPastTheWindowFailsTheDelivery() {
        // The next try would come at 300 s: still inside the window.
        let inside = Self.policy.next(status: 500, attemptCount: 1, windowStart: Self.start, now: Self.start.addingTimeInterval(295))
        #expect(inside.state == .pending)
        let now = Self.start.addingTimeInterval(296)
        let past = Self.policy.next(status: 500, attemptCount: 1, windowStart: Self.start, now: now)
        #expect(past.state == .failed && past.nextAttempt == now)
    }
}
