import ConfigStore
import Dispatch
import Foundation
import Logging
import Synchronization

/// Sends the outbox's due deliveries (docs/webhooks.md, "Delivery"). Every worker of every
/// node runs one; the store leases each due delivery to one of them (`claimDeliveries`), so
/// each attempt is made once in the cluster. A thread of its own looks for due deliveries when
/// this worker commits something, when an attempt ends, and every `pollIntervalSeconds`
/// otherwise; attempts run on a queue of their own, at most `maxConcurrentDeliveries` at once,
/// never on the event loop.
final class WebhookDispatcher: Sendable {
    private let store: any ConfigDatabase
    private let settings: WebhookSettings
    private let policy: WebhookRetryPolicy
    private let logger: Logger
    /// Names this worker in the leases it takes.
    private let owner: String
    private let attempts = DispatchQueue(label: "remote-config.webhooks", attributes: .concurrent)
    private let inFlight = DispatchGroup()
    /// Wakes the thread before its poll interval ends.
    private let wake = DispatchSemaphore(value: 0)
    private let state = Mutex(State())

    private struct State {
        var running = 0
        var stopped = false
        var lastPrune: Date?
    }

    init(store: any ConfigDatabase, settings: WebhookSettings, logger: Logger) {
        self.store = store
        self.settings = settings
        self.logger = logger
        policy = WebhookRetryPolicy(settings)
        owner = "\(ProcessInfo.processInfo.hostName):\(getpid())"
    }

    /// Starts the thread (once).
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "rcs-webhooks"
        thread.start()
    }

    /// Something may be due now (any thread; never blocks).
    func poke() {
        wake.signal()
    }

    /// Stops looking for deliveries and waits (bounded by the attempt time-out) for the
    /// attempts under way; one cut short is tried again once its lease ends.
    func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
        _ = inFlight.wait(timeout: .now() + settings.timeoutSeconds + 1)
    }

    private func run() {
        while true {
            let (stopped, free) = state.withLock { ($0.stopped, settings.maxConcurrentDeliveries - $0.running) }
            if stopped { return }
            var wait = settings.pollIntervalSeconds
            do {
                if let due = try store.webhooks.nextAttemptTime() {
                    let untilDue = due.timeIntervalSinceNow
                    if untilDue <= 0, free > 0, try claimAndSend(limit: free) > 0 { continue }
                    if untilDue > 0 { wait = min(wait, untilDue) }
                }
                try pruneNowAndThen()
            } catch {
                logger.warning("cannot read the webhook outbox", metadata: ["error": "\(error)"])
            }
            _ = wake.wait(timeout: .now() + wait)
        }
    }

    /// Claims at most `limit` due deliveries and starts their attempts; how many.
    private func claimAndSend(limit: Int) throws -> Int {
        let claims = try store.webhooks.claimDeliveries(owner: owner, limit: limit, leaseDuration: settings.leaseSeconds)
        for claim in claims {
            state.withLock { $0.running += 1 }
            attempts.async(group: inFlight) { [self] in
                attempt(claim)
                state.withLock { $0.running -= 1 }
                wake.signal()
            }
        }
        return claims.count
    }

    /// One attempt of `claim`, recorded in the delivery log.
    private func attempt(_ claim: ClaimedDelivery) {
        let (body, isNew) = WebhookPayload.body(of: claim.event, store: store.templates)
        let started = Date()
        let clock = ContinuousClock.now
        let outcome = send(body, of: claim, at: started)
        let elapsed = ContinuousClock.now - clock
        let milliseconds = elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        let attempt = WebhookAttempt(
            time: started, status: outcome.status, latencyMilliseconds: milliseconds,
            response: String(decoding: outcome.response, as: UTF8.self), error: outcome.error)
        let (state, next) = policy.next(
            status: outcome.status, attemptCount: claim.delivery.attemptCount + 1, windowStart: claim.delivery.windowStartTime,
            now: Date())
        do {
            if isNew { try store.webhooks.setEventBody(eventID: claim.event.id, body: body) }
            try store.webhooks.recordAttempt(deliveryID: claim.delivery.id, attempt, state: state, nextAttemptTime: next)
        } catch {
            logger.error("cannot record a webhook attempt", metadata: ["delivery": "\(claim.delivery.id)", "error": "\(error)"])
        }
        if state != .delivered {
            logger.notice("webhook attempt failed", metadata: [
                "endpoint": "\(claim.endpoint.id)", "event": "\(claim.event.id)", "status": "\(outcome.status.map(String.init) ?? "none")",
                "error": "\(outcome.error ?? "")", "next": "\(state == .failed ? "failed for good" : "\(next)")",
            ])
        }
    }

    /// Checks the URL's addresses now, then posts to the one checked, signed.
    private func send(_ body: [UInt8], of claim: ClaimedDelivery, at time: Date) -> WebhookPost.Outcome {
        let connectTo: String
        let address: WebhookAddress
        do {
            address = try WebhookAddress(url: claim.endpoint.url)
            connectTo = try address.checkedAddresses(allowPrivate: settings.allowPrivateAddresses)[0]
        } catch {
            return WebhookPost.Outcome(status: nil, response: [], error: error.message)
        }
        var headers = WebhookSignature.headers(
            id: claim.event.id, timestamp: Int64(time.timeIntervalSince1970), body: body,
            secrets: claim.endpoint.signingSecrets(at: time))
        headers["Content-Type"] = "application/json"
        headers["User-Agent"] = "remote-config-server-webhooks"
        return WebhookPost.send(url: claim.endpoint.url, address: address, connectTo: connectTo, headers: headers, body: body,
                                timeout: settings.timeoutSeconds)
    }

    /// Removes delivered and failed events past the log's retention, at most once an hour.
    private func pruneNowAndThen() throws {
        let now = Date()
        let due = state.withLock { state in
            guard state.lastPrune.map({ now.timeIntervalSince($0) > 3_600 }) ?? true else { return false }
            state.lastPrune = now
            return true
        }
        if due { try store.webhooks.pruneEvents(before: now.addingTimeInterval(-Double(settings.deliveryLogDays) * 86_400)) }
    }
}
