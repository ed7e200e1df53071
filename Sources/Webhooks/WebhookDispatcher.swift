import ConfigCore
package import ConfigStore
import Dispatch
import Foundation
package import Logging
package import ServerCore
import Synchronization

/// Sends the outbox's due deliveries (docs/webhooks.md, "Delivery") as the job
/// `webhook delivery` of every worker of every node; the store leases each due delivery to one
/// of them (`claimDeliveries`), so each attempt is made once in the cluster. The job runs when
/// this worker commits something, when an attempt ends, when the next attempt is due, and every
/// `pollIntervalSeconds` otherwise.
///
/// Its store calls run on the job runtime's queue, the store executor's jobs lane; the attempts'
/// HTTP posts run aside, at most `maxConcurrentDeliveries` at once, and hold no store connection.
package final class WebhookDispatcher: Sendable {
    static let jobName = "webhook delivery"

    private let store: any ConfigDatabase
    private let settings: WebhookSettings
    private let policy: WebhookRetryPolicy
    private let runtime: JobRuntime
    private let logger: Logger
    /// Names this worker in the leases it takes.
    private let owner: String
    /// Where the posts wait on their receivers: a serial queue per attempt that may run at once,
    /// each given a thread of its own while busy. A concurrent queue would share the process's
    /// few default threads, which a slow receiver would then hold from everything else.
    private let posts: [DispatchQueue]
    /// The posts queues without an attempt (runtime's queue only: a claim takes one, the
    /// attempt's end gives it back).
    private let freePosts: Mutex<[Int]>

    package init(store: any ConfigDatabase, settings: WebhookSettings, runtime: JobRuntime, logger: Logger) {
        self.store = store
        self.settings = settings
        self.runtime = runtime
        self.logger = logger
        policy = WebhookRetryPolicy(settings)
        owner = "\(ProcessInfo.processInfo.hostName):\(getpid())"
        posts = (0..<settings.maxConcurrentDeliveries).map { DispatchQueue(label: "remote-config.webhooks.\($0)") }
        freePosts = Mutex(Array(posts.indices))
    }

    package var job: Job {
        Job(Self.jobName, scope: .everyWorker) { [self] now, _ in sendDue(at: now) }
    }

    /// The job that removes delivered and failed events past the log's retention.
    package func pruningJob(logger: Logger) -> Job {
        Job.pruning("webhook log pruning", keepingDays: settings.deliveryLogDays, logger: logger) { [store] cutoff in
            _ = try store.webhooks.pruneEvents(before: cutoff)
        }
    }

    /// Something may be due now (any thread; never blocks).
    package func poke() {
        runtime.poke(Self.jobName)
    }

    /// Claims what is due, as many as there are free attempts, and starts their attempts; when
    /// to look next.
    private func sendDue(at now: Date) -> Date {
        var next = now.addingTimeInterval(settings.pollIntervalSeconds)
        do {
            // A read first: claiming writes, and most looks find nothing due.
            guard let due = try store.webhooks.nextAttemptTime() else { return next }
            guard due <= now else { return min(next, due) }
            let free = freePosts.withLock { $0.count }
            // With every attempt under way, the next to end pokes the job.
            guard free > 0 else { return next }
            let claims = try store.webhooks.claimDeliveries(owner: owner, limit: free, leaseDuration: settings.leaseSeconds)
            for claim in claims { start(claim) }
            // As many as it could take: more may be due now.
            if claims.count == free { next = now }
        } catch {
            logger.warning("cannot read the webhook outbox", metadata: ["error": "\(error)"])
        }
        return next
    }

    /// Starts one attempt of `claim`: its body is read here, the post runs aside, and the
    /// outcome is recorded back on the runtime's queue.
    private func start(_ claim: ClaimedDelivery) {
        // Claimed no more than were free, on this queue: there is one.
        guard let slot = freePosts.withLock({ $0.popLast() }) else { preconditionFailure("more attempts than posts queues") }
        let (body, isNew) = WebhookPayload.body(of: claim.event, store: store.templates)
        runtime.runAside(on: posts[slot]) { [self] in
            attempt(body, of: claim)
        } then: { [self] attempt in
            record(attempt, of: claim, body: isNew ? body : nil)
            freePosts.withLock { $0.append(slot) }
            poke()
        }
    }

    /// Posts `body` for `claim` (on the posts queue).
    private func attempt(_ body: [UInt8], of claim: ClaimedDelivery) -> WebhookAttempt {
        let started = runtime.clock.now
        let clock = ContinuousClock.now
        let outcome = send(body, of: claim, at: started)
        let elapsed = ContinuousClock.now - clock
        let milliseconds = elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return WebhookAttempt(time: started, status: outcome.status, latencyMilliseconds: milliseconds,
                              response: String(decoding: outcome.response, as: UTF8.self), error: outcome.error)
    }

    /// Records `attempt` in the delivery log with when the delivery is due again, keeping the
    /// event's body when it was made for this attempt (runtime's queue).
    private func record(_ attempt: WebhookAttempt, of claim: ClaimedDelivery, body: [UInt8]?) {
        let (state, next) = policy.next(status: attempt.status, attemptCount: claim.delivery.attemptCount + 1,
                                        windowStart: claim.delivery.windowStartTime, now: runtime.clock.now)
        do {
            if let body { try store.webhooks.setEventBody(eventID: claim.event.id, body: body) }
            try store.webhooks.recordAttempt(deliveryID: claim.delivery.id, attempt, state: state, nextAttemptTime: next)
        } catch {
            logger.error("cannot record a webhook attempt", metadata: ["delivery": "\(claim.delivery.id)", "error": "\(error)"])
        }
        if state != .delivered {
            logger.notice("webhook attempt failed", metadata: [
                "endpoint": "\(claim.endpoint.id)", "event": "\(claim.event.id)", "status": "\(attempt.status.map(String.init) ?? "none")",
                "error": "\(attempt.error ?? "")", "next": "\(state == .failed ? "failed for good" : "\(next)")",
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
}
