import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Synchronization
import Testing
import TestSupport

/// Webhook endpoints and the outbox: events commit with their change, each due delivery is
/// leased to one caller, the log keeps every attempt.
extension StoreContract {
    @Suite struct Webhooks {
        let fresh = FreshData()

        private static func endpoint(_ id: String, events: [WebhookEventType], at time: Date, project: String = "p1") -> StoredWebhook {
            StoredWebhook(id: id, project: project, url: "https://hooks.example.com/\(id)", description: "hook \(id)",
                          events: events.map(\.rawValue), secret: "whsec_\(id)", createTime: time, updateTime: time)
        }

        @Test(arguments: StoreEngine.allCases) func webhookEndpointsAreKeptPerProject(engine: StoreEngine) throws {
            let clock = ManualClock()
            let hooks = try fresh.fixture(engine).make(clock: clock).webhooks
            #expect(try hooks.webhooks(project: "p1").isEmpty)
            var first = Self.endpoint("wh_1", events: [.templatePublish, .canaryStart], at: clock.now)
            try hooks.createWebhook(first)
            clock.advance(by: 1)
            try hooks.createWebhook(Self.endpoint("wh_2", events: [.templateRollback], at: clock.now))
            #expect(try hooks.webhooks(project: "p1") == [first, Self.endpoint("wh_2", events: [.templateRollback], at: clock.now)])
            #expect(throws: StoreError.projectNotFound("ghost")) {
                try hooks.createWebhook(Self.endpoint("wh_3", events: [.test], at: clock.now, project: "ghost"))
            }
            let taken = try #require(throws: StoreError.self) { try hooks.createWebhook(first) }
            if case .invalidArgument = taken {} else { Issue.record("expected invalidArgument, got \(taken)") }

            first.url = "https://elsewhere.example.com/"
            first.events = [WebhookEventType.canaryAbort.rawValue]
            first.previousSecret = "whsec_old"
            first.previousSecretExpireTime = clock.now.addingTimeInterval(60)
            first.secret = "whsec_new"
            #expect(try hooks.updateWebhook(first))
            #expect(try hooks.webhooks(project: "p1").first == first)
            #expect(first.signingSecrets(at: clock.now) == ["whsec_new", "whsec_old"])
            #expect(first.signingSecrets(at: clock.now.addingTimeInterval(61)) == ["whsec_new"])
            var elsewhere = first
            elsewhere.project = "other"
            #expect(try !hooks.updateWebhook(elsewhere), "an endpoint is changed through its own project only")
            #expect(try !hooks.deleteWebhook(project: "other", id: "wh_1"))
            #expect(try hooks.deleteWebhook(project: "p1", id: "wh_1"))
            #expect(try !hooks.deleteWebhook(project: "p1", id: "wh_1"))
            #expect(try hooks.webhooks(project: "p1").map(\.id) == ["wh_2"])
        }

        @Test(arguments: StoreEngine.allCases) func eventsCommitWithTheirChangeForTheEndpointsThatWantThem(engine: StoreEngine) throws {
            let clock = ManualClock()
            let database = try fresh.fixture(engine).make(clock: clock)
            let store = database.templates
            let hooks = database.webhooks
            try store.publishTag(1)
            #expect(try hooks.nextAttemptTime() == nil, "no endpoint, no event")
            for (id, events) in [("wh_a", [WebhookEventType.templatePublish, .templateRollback]), ("wh_b", [.templatePublish]),
                                 ("wh_c", [.canaryStart, .canaryShare, .canaryPromote])] {
                try hooks.createWebhook(Self.endpoint(id, events: events, at: clock.now))
            }
            let published = try store.publishTag(2)
            #expect(throws: StoreError.versionMismatch(current: 2)) {
                try store.publish(project: "p1", namespace: .client, templateJSON: Array("{}".utf8), expectedVersion: 1,
                                  metadata: PublishMetadata(updateUser: "x"))
            }
            _ = try store.rollback(project: "p1", namespace: .client, to: 1, metadata: PublishMetadata(updateUser: "ops"))
            #expect(try hooks.nextAttemptTime() == published.updateTime)
            let claimed = try hooks.claimDeliveries(owner: "w1", limit: 10, leaseDuration: 60)
            #expect(claimed.map { "\($0.endpoint.id) \($0.event.type)" }
                == ["wh_a template.publish", "wh_b template.publish", "wh_a template.rollback"])
            let publish = try #require(claimed.first).event
            #expect(publish == claimed[1].event, "one event, two deliveries")
            #expect(publish.project == "p1" && publish.namespace == "firebase" && publish.id.hasPrefix("evt_"))
            #expect(publish.update == WebhookEvent.Update(published) && publish.diffFrom == 1 && publish.body == nil)
            #expect(claimed[2].event.update?.rollbackSource == 1)

            _ = try store.publishCanary(project: "p1", namespace: .client, templateJSON: Array("{\"n\":9}".utf8), expectedVersion: nil,
                                    microPercent: 10_000_000, seed: "s", promoteAt: nil, metadata: PublishMetadata(updateUser: "ops"))
            _ = try store.setCanaryShare(project: "p1", namespace: .client, expectedCanary: nil, microPercent: 50_000_000, updateUser: "lead")
            _ = try store.abortCanary(project: "p1", namespace: .client, expectedCanary: nil, metadata: PublishMetadata(updateUser: "ops"))
            let canary = try hooks.claimDeliveries(owner: "w1", limit: 10, leaseDuration: 60).map(\.event)
            #expect(canary.map(\.type) == ["canary.start", "canary.share"], "wh_c does not want aborts")
            #expect(canary.last?.update?.updateUser == "lead" && canary.last?.diffFrom == nil)
            #expect(canary.last.map { String(decoding: $0.data ?? [], as: UTF8.self) } == #"{"canary":{"percent":50.0,"versionNumber":"4"}}"#)
        }

        @Test(.timeLimit(.minutes(2)), arguments: StoreEngine.allCases)
        func aDueDeliveryIsLeasedToOneCallerAtATime(engine: StoreEngine) throws {
            let clock = ManualClock()
            let fixture = try fresh.fixture(engine)
            let stores = try [fixture.make(clock: clock)] + (1...2).map { _ in try fixture.make(clock: clock, addProject: false) }
            try stores[0].webhooks.createWebhook(Self.endpoint("wh_a", events: [.templatePublish], at: clock.now))
            for tag in 1...30 { try stores[0].publishTag(tag) }
            let claims = Mutex<[String: [Int64]]>([:])
            onThreads(6) { thread in
                let store = stores[thread % stores.count]
                while let batch = try? store.webhooks.claimDeliveries(owner: "w\(thread)", limit: 4, leaseDuration: 60), !batch.isEmpty {
                    claims.withLock { $0["w\(thread)", default: []] += batch.map(\.delivery.id) }
                }
            }
            let all = claims.withLock { $0.values.flatMap { $0 } }
            #expect(all.count == 30 && Set(all).count == 30, "each delivery claimed once: \(claims.withLock { $0 })")
            let hooks = stores[1].webhooks
            #expect(try hooks.claimDeliveries(owner: "late", limit: 100, leaseDuration: 60).isEmpty)
            clock.advance(by: 61)
            #expect(try hooks.claimDeliveries(owner: "late", limit: 100, leaseDuration: 60).count == 30, "expired leases are claimed again")
        }

        @Test(arguments: StoreEngine.allCases) func attemptsAreLoggedRetriedRedeliveredAndPruned(engine: StoreEngine) throws {
            let clock = ManualClock()
            let store = try fresh.fixture(engine).make(clock: clock)
            let hooks = store.webhooks
            try hooks.createWebhook(Self.endpoint("wh_a", events: [.templatePublish], at: clock.now))
            try store.publishTag(1)
            let claim = try #require(try hooks.claimDeliveries(owner: "w", limit: 1, leaseDuration: 60).first)
            try hooks.setEventBody(eventID: claim.event.id, body: Array("first".utf8))
            try hooks.setEventBody(eventID: claim.event.id, body: Array("second".utf8))
            let failure = WebhookAttempt(time: clock.now, status: 503, latencyMilliseconds: 12, response: "busy", error: nil)
            try hooks.recordAttempt(deliveryID: claim.delivery.id, failure, state: .pending, nextAttemptTime: clock.now.addingTimeInterval(30))
            #expect(try hooks.nextAttemptTime() == clock.now.addingTimeInterval(30))
            #expect(try hooks.claimDeliveries(owner: "w", limit: 1, leaseDuration: 60).isEmpty, "not due before its retry time")
            clock.advance(by: 30)
            let retry = try #require(try hooks.claimDeliveries(owner: "w", limit: 1, leaseDuration: 60).first)
            #expect(retry.event.body == Array("first".utf8) && retry.delivery.attemptCount == 1)
            let success = WebhookAttempt(time: clock.now, status: nil, latencyMilliseconds: 5, response: "", error: "refused")
            try hooks.recordAttempt(deliveryID: retry.delivery.id, success, state: .delivered, nextAttemptTime: clock.now)
            #expect(try hooks.nextAttemptTime() == nil)

            let testID = try #require(try hooks.appendTestEvent(
                WebhookEvent(type: "test", project: "p1", namespace: nil, time: clock.now), project: "p1", endpointID: "wh_a"))
            #expect(try hooks.appendTestEvent(WebhookEvent(type: "test", project: "p1", namespace: nil, time: clock.now),
                                              project: "p1", endpointID: "wh_zz") == nil)
            let (page, next) = try hooks.deliveries(endpointID: "wh_a", pageSize: 1, pageToken: nil)
            #expect(page.map(\.id) == [testID] && page.first?.eventType == "test" && page.first?.state == .pending)
            let (rest, end) = try hooks.deliveries(endpointID: "wh_a", pageSize: 1, pageToken: next)
            #expect(end == nil && rest.first?.state == .delivered && rest.first?.attempts == [failure, success])
            #expect(throws: StoreError.invalidPageToken("x1")) { try hooks.deliveries(endpointID: "wh_a", pageSize: 1, pageToken: "x1") }

            #expect(try hooks.redeliver(endpointID: "wh_a", deliveryID: claim.delivery.id))
            #expect(try !hooks.redeliver(endpointID: "wh_b", deliveryID: claim.delivery.id))
            #expect(try hooks.claimDeliveries(owner: "w", limit: 5, leaseDuration: 60).map(\.delivery.id).sorted()
                == [claim.delivery.id, testID].sorted())
            for id in [claim.delivery.id, testID] {
                try hooks.recordAttempt(deliveryID: id, success, state: .failed, nextAttemptTime: clock.now)
            }
            clock.advance(by: 10)
            #expect(try hooks.pruneEvents(before: clock.now) == 2)
            #expect(try hooks.deliveries(endpointID: "wh_a", pageSize: 10, pageToken: nil).deliveries.isEmpty)
        }
    }
}
