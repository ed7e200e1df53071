import ConfigCore
@testable import ServerCore
@testable import Webhooks
import Foundation
import Testing
import TestSupport

/// Webhooks end to end on a real server and a loopback receiver: signed payloads with their
/// diff, retries, the delivery log, test events, rotation, redelivery, roles and the audit log.
/// The server's clock is a manual one: a retry is made when the test moves it, and the log is
/// read once the attempts due have run to the end (`runDueJobs`).
@Suite(.timeLimit(.minutes(1))) final class WebhookTests {
    let server: TestServer
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))

    init() throws {
        server = try TestServer(clock: clock) {
            $0.webhooks.allowPrivateAddresses = true
            $0.webhooks.retryBaseSeconds = 0.05
            $0.webhooks.retryMaxDelaySeconds = 0.2
            $0.webhooks.pollIntervalSeconds = 0.05
            $0.adminTokens.append(AdminTokenDeclaration(name: "publisher", token: "publisher-token", roles: ["demo": "publisher"]))
        }
    }

    /// Creates an endpoint for `events`; its id and secret.
    func create(_ url: String, events: [String]) throws -> (id: String, secret: String) {
        let body = try String(decoding: JSONSerialization.data(withJSONObject: ["url": url, "events": events, "description": "test"]),
                              as: UTF8.self)
        let response = try server.admin("POST", "/v1/projects/demo/webhooks", body: body)
        #expect(response.status == 200, "\(response.text)")
        let json = try response.json()
        return (try #require(json["id"] as? String), try #require(json["secret"] as? String))
    }

    /// The signatures of `request` that `secret` makes (`v1,…`), and whether one is there.
    static func isSigned(_ request: WebhookReceiver.Received, by secret: String) -> Bool {
        guard let timestamp = Int64(request.headers["webhook-timestamp"] ?? ""),
              let expected = WebhookSignature.signature(id: request.id, timestamp: timestamp, body: Array(request.body), secret: secret)
        else { return false }
        return (request.headers["webhook-signature"] ?? "").split(separator: " ").contains { $0 == expected }
    }

    func deliveries(_ id: String) throws -> [[String: Any]] {
        let response = try server.admin("GET", "/v1/projects/demo/webhooks/\(id)/deliveries")
        #expect(response.status == 200, "\(response.text)")
        return try #require(try response.json()["deliveries"] as? [[String: Any]])
    }

    /// The deliveries once the attempts due ran to the end (their log is written after the
    /// receiver answered); `done` must hold for them then.
    func deliveries(_ id: String, until done: ([[String: Any]]) -> Bool) throws -> [[String: Any]] {
        server.runDueJobs()
        let deliveries = try deliveries(id)
        guard done(deliveries) else { throw TestFailure("the delivery log is not as expected: \(deliveries)") }
        return deliveries
    }

    /// Moves `server`'s clock past its poll interval and the longest retry delay, then runs what
    /// is due, `rounds` times: one attempt of a failing delivery each round, whether its first
    /// came from the commit's poke before the first round or from the poll in it.
    static func attempt(_ server: TestServer, clock: ManualClock, rounds: Int) {
        for _ in 0..<rounds {
            clock.advance(by: 0.2)
            server.runDueJobs()
        }
    }

    @Test func aPublishIsDeliveredSignedWithFirebaseFieldsAndItsDiff() throws {
        let receiver = try WebhookReceiver()
        try server.publish(Templates.single("a"))
        let hook = try create(receiver.url, events: ["template.publish"])
        let other = try create(receiver.url, events: ["template.rollback"])
        try server.publish(Templates.single("b"))
        let request = try #require(try receiver.requests(atLeast: 1).first)
        #expect(Self.isSigned(request, by: hook.secret) && !Self.isSigned(request, by: other.secret))
        #expect(request.headers["content-type"] == "application/json")
        let payload = request.json
        #expect(payload["id"] as? String == request.id && request.id.hasPrefix("evt_"))
        #expect(payload["type"] as? String == "template.publish" && payload["project"] as? String == "demo")
        #expect(payload["namespace"] as? String == "firebase" && payload["versionNumber"] as? String == "2")
        #expect(payload["environment"] as? String == "production")
        #expect(payload["updateType"] as? String == "FORCED_UPDATE" && payload["updateOrigin"] as? String == "REST_API")
        #expect((payload["updateUser"] as? [String: Any])?["email"] as? String == "tester@example.com")
        #expect(payload["updateTime"] is String && payload["time"] is String)
        let diff = try #require(payload["diff"] as? [String: Any])
        #expect(diff["from"] as? String == "1" && diff["to"] as? String == "2")
        #expect((diff["diff"] as? [String: Any])?["changedParameters"] as? [Any] != nil)
        let log = try deliveries(hook.id) { $0.first?["state"] as? String == "delivered" }
        #expect(log.count == 1 && log.first?["eventId"] as? String == request.id && log.first?["attemptCount"] as? Int == 1)
        let attempt = try #require((log.first?["attempts"] as? [[String: Any]])?.first)
        #expect(attempt["status"] as? Int == 200 && attempt["response"] as? String == "answer 0" && attempt["latencyMs"] is Int)
        #expect(try deliveries(other.id).isEmpty, "an endpoint gets only the events it wants")
    }

    /// Each step of a change request is an event, written with the step; applying one reports the
    /// version it made.
    @Test func changeRequestStepsAreDelivered() throws {
        let receiver = try WebhookReceiver()
        try server.publish(Templates.single("a"))
        let types = ["changeRequest.created", "changeRequest.approved", "changeRequest.applied", "changeRequest.rejected",
                     "template.publish"]
        _ = try create(receiver.url, events: types)
        let base = "/v1/projects/demo/namespaces/firebase"
        #expect(try server.admin("PUT", base + "/changePolicy", body: #"{"requiredApprovals":1,"allowSelfApproval":true}"#).status == 200)
        let made = try server.admin("POST", base + "/changeRequests", body: #"{"template":\#(Templates.single("b")),"description":"b"}"#)
        let id = try #require(try made.json()["id"] as? String)
        #expect(try server.admin("POST", base + "/changeRequests/\(id):approve", body: #"{"comment":"fine"}"#).status == 200)
        #expect(try server.admin("POST", base + "/changeRequests/\(id):apply").status == 200)
        let received = try receiver.requests(atLeast: 4)
        // Deliveries run concurrently: the order of arrival is not the order of the steps.
        #expect(received.count == 4)
        #expect(Set(received.map { $0.json["type"] as? String ?? "" })
            == ["changeRequest.created", "changeRequest.approved", "template.publish", "changeRequest.applied"])
        let applied = try #require(received.first { $0.json["type"] as? String == "changeRequest.applied" }).json
        #expect(applied["versionNumber"] as? String == "2" && applied["description"] as? String == "b")
        let data = try #require(applied["data"] as? [String: Any])
        #expect((data["changeRequest"] as? [String: Any])?["id"] as? String == id)
        #expect((data["changeRequest"] as? [String: Any])?["status"] as? String == "applied")
        #expect((data["actor"] as? [String: Any])?["principal"] as? String == "token:tester")
        let approved = try #require(received.first { $0.json["type"] as? String == "changeRequest.approved" }).json
        #expect(((approved["data"] as? [String: Any])?["actor"] as? [String: Any])?["comment"] as? String == "fine")
    }

    @Test func aReceiverThatIsDownGetsTheEventOnceItIsBack() throws {
        // Down (no answer), then failing, then up.
        let receiver = try WebhookReceiver { index in [nil, 503, 200][min(index, 2)] }
        let hook = try create(receiver.url, events: ["template.publish"])
        try server.publish(Templates.single("a"))
        Self.attempt(server, clock: clock, rounds: 3)
        let requests = try receiver.requests(atLeast: 3)
        #expect(Set(requests.map(\.id)).count == 1 && Set(requests.map(\.body)).count == 1, "every attempt sends the same message")
        let log = try deliveries(hook.id) { $0.first?["state"] as? String == "delivered" }
        let attempts = try #require(log.first?["attempts"] as? [[String: Any]])
        #expect(attempts.map { $0["status"] as? Int } == [nil, 503, 200])
        #expect(attempts.first?["error"] as? String != nil)
    }

    @Test func attemptsEndInFailureAfterTheRetryWindow() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let server = try TestServer(clock: clock) {
            $0.webhooks.allowPrivateAddresses = true
            $0.webhooks.retryBaseSeconds = 0.05
            $0.webhooks.retryWindowSeconds = 1.5
            $0.webhooks.retryMaxDelaySeconds = 0.2
            $0.webhooks.pollIntervalSeconds = 0.05
        }
        let receiver = try WebhookReceiver { _ in 500 }
        let created = try server.admin("POST", "/v1/projects/demo/webhooks", body: #"{"url":"\#(receiver.url)","events":["test"]}"#)
        let id = try #require(try created.json()["id"] as? String)
        #expect(try server.admin("POST", "/v1/projects/demo/webhooks/\(id):test").status == 200)
        // Every 0.2 s up to the window's 1.5 s: an attempt at 1.4 s is the last.
        Self.attempt(server, clock: clock, rounds: 10)
        let log = try server.admin("GET", "/v1/projects/demo/webhooks/\(id)/deliveries").json()
        let delivery = (log["deliveries"] as? [[String: Any]])?.first
        #expect(delivery?["state"] as? String == "failed", "\(log)")
        let attempts = try receiver.requests(atLeast: 2).count
        #expect(attempts >= 2 && attempts == delivery?["attemptCount"] as? Int, "tried again before giving up: \(attempts)")
    }

    @Test func testEventsRotationAndRedelivery() throws {
        let receiver = try WebhookReceiver()
        let hook = try create(receiver.url, events: ["template.rollback"])
        let test = try server.admin("POST", "/v1/projects/demo/webhooks/\(hook.id):test")
        #expect(test.status == 200, "\(test.text)")
        let first = try #require(try receiver.requests(atLeast: 1).last)
        let eventID = try test.json()["eventId"] as? String
        #expect(first.json["type"] as? String == "test" && first.id == eventID)
        #expect(Self.isSigned(first, by: hook.secret))

        let rotated = try server.admin("POST", "/v1/projects/demo/webhooks/\(hook.id):rotateSecret", body: #"{"overlapSeconds":3600}"#)
        let newSecret = try #require(try rotated.json()["secret"] as? String)
        let overlapEnds = try rotated.json()["previousSecretExpireTime"] as? String
        #expect(newSecret != hook.secret && overlapEnds != nil)
        #expect(try server.admin("POST", "/v1/projects/demo/webhooks/\(hook.id):test").status == 200)
        let during = try #require(try receiver.requests(atLeast: 2).last)
        #expect(Self.isSigned(during, by: newSecret) && Self.isSigned(during, by: hook.secret), "both sign during the overlap")

        let now = try server.admin("POST", "/v1/projects/demo/webhooks/\(hook.id):rotateSecret", body: #"{"overlapSeconds":0}"#)
        let newest = try #require(try now.json()["secret"] as? String)
        let deliveryID = try #require(try deliveries(hook.id) { $0.count == 2 && $0.allSatisfy { $0["state"] as? String == "delivered" } }
            .last?["id"] as? String)
        let redelivered = try server.admin("POST", "/v1/projects/demo/webhooks/\(hook.id)/deliveries/\(deliveryID):redeliver")
        #expect(redelivered.status == 200, "\(redelivered.text)")
        let again = try #require(try receiver.requests(atLeast: 3).last)
        #expect(again.id == first.id && again.body == first.body, "a redelivery sends the same message")
        #expect(Self.isSigned(again, by: newest) && !Self.isSigned(again, by: newSecret), "without overlap only the new secret signs")
        #expect(try server.admin("GET", "/v1/projects/demo/webhooks/\(hook.id)").json()["secret"] == nil, "a secret is shown once")
    }

    @Test func badInputGetsAPreciseErrorAndChangesNothing() throws {
        let strict = try TestServer()
        let hook = try create("http://127.0.0.1:9/", events: ["test"])
        let cases: [(method: String, path: String, body: String, status: Int, says: String)] = [
            ("POST", "/v1/projects/demo/webhooks", #"{"url":"https://example.com/","events":["template.pubish"]}"#, 400, "'template.pubish' is not an event type"),
            ("POST", "/v1/projects/demo/webhooks", #"{"url":"https://example.com/","events":[]}"#, 400, "non-empty array"),
            ("POST", "/v1/projects/demo/webhooks", #"{"url":"ftp://example.com/","events":["test"]}"#, 400, "http or https"),
            ("POST", "/v1/projects/demo/webhooks", #"{"url":"https://user:pw@example.com/","events":["test"]}"#, 400, "credentials"),
            ("POST", "/v1/projects/demo/webhooks", #"{"events":["test"]}"#, 400, "url is required"),
            ("POST", "/v1/projects/demo/webhooks", #"{"url":"https://example.com/","events":["test"],"secret":"x"}"#, 400, "Unknown field 'secret'"),
            ("POST", "/v1/projects/demo/webhooks", #"{"url": "#, 400, "not valid JSON"),
            ("POST", "/v1/projects/demo/webhooks", #"["https://example.com/"]"#, 400, "must be a JSON object"),
            ("PATCH", "/v1/projects/demo/webhooks/\(hook.id)", #"{"events":"test"}"#, 400, "non-empty array"),
            ("GET", "/v1/projects/demo/webhooks/wh_nope", "", 404, "No webhook 'wh_nope'"),
            ("DELETE", "/v1/projects/demo/webhooks/wh_nope", "", 404, "No webhook 'wh_nope'"),
            ("POST", "/v1/projects/demo/webhooks/wh_nope:test", "", 404, "No webhook 'wh_nope'"),
            ("POST", "/v1/projects/demo/webhooks/\(hook.id):ping", "", 404, "Unknown method 'webhooks:ping'"),
            ("POST", "/v1/projects/demo/webhooks/\(hook.id):rotateSecret", #"{"overlapSeconds":"1h"}"#, 400, "overlapSeconds"),
            ("POST", "/v1/projects/demo/webhooks/\(hook.id)/deliveries/abc:redeliver", "", 404, "No delivery 'abc'"),
            ("POST", "/v1/projects/demo/webhooks/\(hook.id)/deliveries/99:redeliver", "", 404, "No delivery '99'"),
            ("GET", "/v1/projects/demo/webhooks/\(hook.id)/deliveries?pageSize=0", "", 400, "pageSize"),
            ("GET", "/v1/projects/demo/webhooks/\(hook.id)/deliveries?pageToken=zz", "", 400, "zz"),
            ("GET", "/v1/projects/nope/webhooks", "", 404, "nope"),
            ("PUT", "/v1/projects/demo/webhooks", "", 405, "Method not allowed"),
        ]
        for test in cases {
            let response = try server.admin(test.method, test.path, body: test.body)
            #expect(response.status == test.status && response.text.contains(test.says), "\(test.method) \(test.path): \(response.text)")
            #expect(response.errorStatus != nil, "Firebase's error shape: \(response.text)")
        }
        // Without allowPrivateAddresses: loopback, private, link-local and names that resolve there.
        for url in ["http://127.0.0.1:8080/", "http://10.1.2.3/", "http://169.254.169.254/latest", "http://[::1]/", "http://[fd00::1]/",
                    "http://localhost:1/", "http://100.64.0.1/", "http://[::ffff:192.168.0.1]/"] {
            let response = try strict.admin("POST", "/v1/projects/demo/webhooks", body: #"{"url":"\#(url)","events":["test"]}"#)
            #expect(response.status == 400 && response.text.contains("allowPrivateAddresses"), "\(url): \(response.text)")
        }
        #expect(try (strict.admin("GET", "/v1/projects/demo/webhooks").json()["webhooks"] as? [Any])?.isEmpty == true)
        let hooks = try #require(try server.admin("GET", "/v1/projects/demo/webhooks").json()["webhooks"] as? [[String: Any]])
        #expect(hooks.count == 1 && hooks.first?["events"] as? [String] == ["test"], "nothing changed: \(hooks)")
    }

    @Test func onlyTheProjectsAdminsManageWebhooksAndEveryChangeIsAudited() throws {
        let receiver = try WebhookReceiver()
        let hook = try create(receiver.url, events: ["template.publish"])
        let publisher = [("Authorization", "Bearer publisher-token")]
        #expect(try server.request("GET", "/v1/projects/demo/webhooks", headers: publisher).status == 403)
        #expect(try server.request("POST", "/v1/projects/demo/webhooks/\(hook.id):test", headers: publisher).status == 403)
        #expect(try server.admin("PATCH", "/v1/projects/demo/webhooks/\(hook.id)", body: #"{"description":"renamed"}"#).status == 200)
        let rotated = try server.admin("POST", "/v1/projects/demo/webhooks/\(hook.id):rotateSecret")
        let secret = try #require(try rotated.json()["secret"] as? String)
        #expect(try server.admin("POST", "/v1/projects/demo/webhooks/\(hook.id):test").status == 200)
        let delivery = try #require(try deliveries(hook.id) { $0.first?["state"] as? String == "delivered" }.first?["id"] as? String)
        #expect(try server.admin("POST", "/v1/projects/demo/webhooks/\(hook.id)/deliveries/\(delivery):redeliver").status == 200)
        #expect(try server.admin("DELETE", "/v1/projects/demo/webhooks/\(hook.id)").status == 204)
        let log = try server.admin("GET", "/v1/auditLog?project=demo")
        let actions = try #require(try log.json()["entries"] as? [[String: Any]]).map { "\($0["action"] ?? "") \($0["outcome"] ?? "")" }
        for action in ["webhook.create ok", "webhook.list denied", "webhook.test denied", "webhook.update ok", "webhook.rotate ok",
                       "webhook.test ok", "webhook.redeliver ok", "webhook.delete ok"] {
            #expect(actions.contains(action), "\(action) in \(actions)")
        }
        #expect(!log.text.contains(hook.secret) && !log.text.contains(secret), "no secret in the audit log")
    }
}
