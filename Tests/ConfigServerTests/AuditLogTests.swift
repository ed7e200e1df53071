import ConfigServer
import ServerCore
import Foundation
import Testing

/// The audit log end to end: an entry with the right actor, target, version and diff for each
/// kind of change; refusals; filters, pages and exports; nothing in it can be changed, and no
/// secret is ever in it.
@Suite(.timeLimit(.minutes(1))) final class AuditLogTests {
    let server: TestServer

    init() throws {
        server = try TestServer { $0.trustedProxies = ["127.0.0.1"] }
    }

    func entries(_ query: String = "") throws -> [[String: Any]] {
        let response = try server.admin("GET", "/v1/auditLog\(query)")
        #expect(response.status == 200, "\(response.text)")
        return try #require(try response.json()["entries"] as? [[String: Any]])
    }

    @Test func everyKindOfChangeIsKeptWithItsActorAndTarget() throws {
        let headers = [("If-Match", "*"), ("X-RCS-Origin", "CLI"), ("X-Forwarded-For", "203.0.113.7"), ("X-Request-Id", "req-42")]
        #expect(try server.admin("PUT", "/v1/projects/demo/remoteConfig", headers: headers, body: Templates.single("a")).status == 200)
        #expect(try server.admin("PUT", "/v1/projects/424242/remoteConfig", headers: [("If-Match", "*")], body: Templates.single("b")).status == 200)
        #expect(try server.admin("POST", "/v1/projects/demo/remoteConfig:rollback", body: #"{"versionNumber":1}"#).status == 200)
        #expect(try server.admin("PUT", "/v1/projects/demo/remoteConfig?canaryPercent=5", headers: [("If-Match", "*")],
                                 body: Templates.single("c")).status == 200)
        #expect(try server.admin("POST", "/v1/projects/demo/remoteConfig:canary", headers: [("If-Match", "*")], body: #"{"percent":10}"#).status == 200)
        #expect(try server.admin("POST", "/v1/projects/demo/remoteConfig:abort", headers: [("If-Match", "*")]).status == 200)
        let key = try #require(try server.admin("POST", "/v1/projects/demo/apiKeys", body: #"{"name":"ios"}"#).json()["key"] as? String)
        #expect(try server.admin("POST", "/v1/principals", body: #"{"displayName":"CI"}"#).status == 200)
        #expect(try server.admin("PUT", "/v1/projects/demo/members/svc-ci", body: #"{"role":"viewer"}"#).status == 200)
        let token = try server.admin("POST", "/v1/tokens", body: #"{"principal":"svc-ci","name":"t"}"#).json()
        let tokenID = try #require(token["id"] as? String), secret = try #require(token["token"] as? String)
        // A refusal for a missing role is kept too.
        #expect(try server.request("PUT", "/v1/projects/demo/remoteConfig", headers: [("Authorization", "Bearer \(secret)"), ("If-Match", "*")],
                                   body: Templates.single("d")).status == 403)
        #expect(try server.admin("DELETE", "/v1/tokens/\(tokenID)").status == 204)
        #expect(try server.admin("DELETE", "/v1/projects/demo/members/svc-ci").status == 204)
        #expect(try server.admin("POST", "/v1/projects", body: #"{"projectId":"p2","projectNumber":"22"}"#).status == 200)

        let log = try entries().reversed().map { $0 }
        #expect(log.map { $0["action"] as? String ?? "?" } == [
            "template.publish", "template.publish", "template.rollback", "canary.start", "canary.share", "canary.abort",
            "apiKey.create", "principal.create", "member.set", "token.create", "template.publish", "token.revoke",
            "member.remove", "project.create",
        ])
        let first = log[0]
        #expect((first["actor"] as? [String: Any])?["id"] as? String == "token:tester")
        #expect(first["origin"] as? String == "CLI" && first["requestId"] as? String == "req-42")
        #expect(first["clientAddress"] as? String == "203.0.113.7", "by the trusted-proxy rule")
        #expect(first["project"] as? String == "demo" && first["namespace"] as? String == "firebase" && first["versionNumber"] as? String == "1")
        #expect(first["environment"] as? String == "production")
        #expect(first["outcome"] as? String == "ok" && first["diff"] == nil, "a first version has nothing to differ from")
        #expect(log[1]["project"] as? String == "demo", "a project number is kept as its id")
        let diff = try #require(log[1]["diff"] as? [String: Any])
        #expect(diff["from"] as? String == "1" && diff["to"] as? String == "2" && diff["diff"] != nil, "\(diff)")
        #expect(log[2]["versionNumber"] as? String == "3" && log[2]["diff"] != nil)
        #expect(log[6]["target"] as? String == "ios" && log[8]["target"] as? String == "svc-ci" && log[9]["target"] as? String == tokenID)
        let refusal = log[10]
        #expect(refusal["outcome"] as? String == "denied" && (refusal["actor"] as? [String: Any])?["id"] as? String == "svc-ci")
        #expect(log[13]["project"] as? String == "p2")
        let everything = try server.admin("GET", "/v1/auditLog?format=jsonl").text
        #expect(!everything.contains(secret) && !everything.contains(key), "never a secret")
    }

    /// The worker that answers a publish diffs its version against the one before from memory
    /// (the versions it installed last): the entry holds exactly what `:diff` reads from the store.
    @Test func aPublishsDiffIsWhatDiffReadsFromTheStore() throws {
        try server.publish(Templates.basic)
        try server.publish(Templates.basic.replacingOccurrences(of: "hi pro", with: "hi pro!")
            .replacingOccurrences(of: #""limit":{"defaultValue":{"value":"10"},"valueType":"NUMBER"},"#, with: ""))
        let entry = try #require(try entries("?action=template.publish").first { $0["versionNumber"] as? String == "2" })
        let kept = try JSONSerialization.data(withJSONObject: try #require(entry["diff"]), options: .sortedKeys)
        let read = try server.admin("GET", "/v1/projects/demo/remoteConfig:diff?from=1&to=2")
        #expect(read.status == 200, "\(read.text)")
        let answered = try JSONSerialization.data(withJSONObject: try read.json(), options: .sortedKeys)
        #expect(String(decoding: kept, as: UTF8.self) == String(decoding: answered, as: UTF8.self))
        #expect(String(decoding: kept, as: UTF8.self).contains("limit"), "the removed parameter is in it")
    }

    @Test func filtersPagesAndExports() throws {
        for value in ["a", "b", "c"] { try server.publish(Templates.single(value)) }
        #expect(try server.admin("POST", "/v1/principals", body: #"{"displayName":"CI"}"#).status == 200)
        #expect(try entries("?action=template.publish").count == 3)
        #expect(try entries("?project=demo").count == 3)
        #expect(try entries("?actor=token:tester").count == 4)
        #expect(try entries("?startTime=2000-01-01T00:00:00Z&endTime=2001-01-01T00:00:00Z").isEmpty)
        let page = try server.admin("GET", "/v1/auditLog?pageSize=3")
        let next = try #require(page.header("X-Next-Page-Token"))
        #expect(try page.json()["nextPageToken"] as? String == next)
        #expect(try entries("?pageSize=3&pageToken=\(next)").count == 1)
        let lines = try server.admin("GET", "/v1/auditLog?format=jsonl").text.split(separator: "\n")
        #expect(lines.count == 4 && lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil })
        let csv = try server.admin("GET", "/v1/auditLog?format=csv")
        #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true)
        let rows = csv.text.split(separator: "\r\n")
        #expect(rows.count == 5 && rows[0].hasPrefix("id,time,actorId,actorName,origin"))
        for bad in ["?pageSize=0", "?pageToken=zz", "?format=xml", "?startTime=soon"] {
            #expect(try server.admin("GET", "/v1/auditLog\(bad)").status == 400, "\(bad)")
        }
    }

    @Test func theLogCannotBeChangedThroughTheAPI() throws {
        try server.publish(Templates.single("a"))
        for method in ["PUT", "POST", "DELETE", "PATCH"] {
            #expect(try server.admin(method, "/v1/auditLog", body: "{}").status == 405, "\(method)")
        }
        #expect(try entries().count == 1)
    }

    @Test func onlyAnOwnerReadsTheWholeLogAndAProjectAdminItsProjects() throws {
        #expect(try server.admin("POST", "/v1/principals", body: #"{"displayName":"Ops"}"#).status == 200)
        #expect(try server.admin("PUT", "/v1/projects/demo/members/svc-ops", body: #"{"role":"admin"}"#).status == 200)
        let secret = try #require(try server.admin("POST", "/v1/tokens", body: #"{"principal":"svc-ops","name":"t"}"#).json()["token"] as? String)
        let auth = [("Authorization", "Bearer \(secret)")]
        let all = try server.request("GET", "/v1/auditLog", headers: auth)
        #expect(all.status == 403 && all.text.contains("'owner'"), "\(all.text)")
        #expect(try server.request("GET", "/v1/auditLog?project=demo", headers: auth).status == 200)
        // The refusal is kept, as every refusal for a missing role is; the reads that succeed are not.
        let entries = try #require(try server.admin("GET", "/v1/auditLog").json()["entries"] as? [[String: Any]])
        let refusals = entries.filter { $0["action"] as? String == "audit.list" }
        #expect(refusals.count == 1 && refusals.first?["outcome"] as? String == "denied", "\(entries)")
    }
}
