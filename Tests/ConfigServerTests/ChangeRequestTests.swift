import ConfigServer
import ServerCore
import Foundation
import Testing

/// Change requests end to end on a real server: the policy, who may approve and apply, edits
/// clearing approvals, a conflict on apply, the emergency bypass, and bad input.
@Suite(.timeLimit(.minutes(1))) final class ChangeRequestTests {
    let server: TestServer
    static let tokens = ["editor": "editor", "alice": "publisher", "bob": "publisher", "carol": "admin", "viewer": "viewer"]
    static let base = "/v1/projects/demo/namespaces/firebase"

    init() throws {
        server = try TestServer { configuration in
            for (name, role) in Self.tokens {
                configuration.adminTokens.append(AdminTokenDeclaration(name: "\(name)@example.com", token: name, roles: ["demo": role]))
            }
        }
        _ = try server.publish(Templates.single("v1"))
    }

    func call(_ token: String, _ method: String, _ path: String, _ body: String = "", headers: [(String, String)] = []) throws
        -> TestResponse {
        try server.request(method, path, headers: [("Authorization", "Bearer \(token)")] + headers, body: body)
    }

    func requireApprovals(_ count: Int, selfApproval: Bool = false) throws {
        let body = #"{"requiredApprovals":\#(count),"allowSelfApproval":\#(selfApproval),"editorsMayPublish":false}"#
        let set = try call("carol", "PUT", Self.base + "/changePolicy", body)
        #expect(set.status == 200, "\(set.text)")
    }

    /// Proposes `value` as `token`; returns the request's id.
    func propose(_ value: String, as token: String = "editor") throws -> String {
        let made = try call(token, "POST", Self.base + "/changeRequests",
                            #"{"template":\#(Templates.single(value)),"description":"set \#(value)"}"#)
        #expect(made.status == 200, "\(made.text)")
        return try #require(try made.json()["id"] as? String)
    }

    func status(_ id: String) throws -> String {
        try #require(try call("viewer", "GET", Self.base + "/changeRequests/\(id)").json()["status"] as? String)
    }

    func activeValue() throws -> String {
        let template = try call("viewer", "GET", "/v1/projects/demo/remoteConfig").json()
        let parameters = template["parameters"] as? [String: Any]
        return ((parameters?["key"] as? [String: Any])?["defaultValue"] as? [String: Any])?["value"] as? String ?? ""
    }

    @Test func withoutAPolicyEverythingStaysAsToday() throws {
        #expect(try call("alice", "PUT", "/v1/projects/demo/remoteConfig", Templates.single("v2"), headers: [("If-Match", "*")]).status == 200)
        #expect(try call("editor", "PUT", "/v1/projects/demo/remoteConfig", Templates.single("v3"), headers: [("If-Match", "*")]).status == 403)
        let policy = try call("viewer", "GET", Self.base + "/changePolicy").json()
        #expect(policy["requiredApprovals"] as? Int == 0)
    }

    @Test func editorsPublishWhereThePolicyLetsThem() throws {
        let set = try call("carol", "PUT", Self.base + "/changePolicy", #"{"requiredApprovals":0,"editorsMayPublish":true}"#)
        #expect(set.status == 200, "\(set.text)")
        let published = try call("editor", "PUT", "/v1/projects/demo/remoteConfig", Templates.single("v2"), headers: [("If-Match", "*")])
        #expect(published.status == 200, "\(published.text)")
        #expect(try call("viewer", "PUT", "/v1/projects/demo/remoteConfig", Templates.single("v3"), headers: [("If-Match", "*")]).status == 403)
    }

    @Test func aDirectChangeIsRefusedWhereApprovalIsRequiredUnlessAnAdminBypasses() throws {
        try requireApprovals(1)
        let publish = { (token: String, query: String) in
            try self.call(token, "PUT", "/v1/projects/demo/remoteConfig\(query)", Templates.single("direct"), headers: [("If-Match", "*")])
        }
        let refused = try publish("alice", "")
        #expect(refused.status == 403 && refused.text.contains("[APPROVAL_REQUIRED]") && refused.text.contains("changeRequests"),
                "\(refused.text)")
        #expect(try call("alice", "POST", "/v1/projects/demo/remoteConfig:rollback", #"{"versionNumber":1}"#).status == 403)
        #expect(try publish("alice", "?bypassApproval=true").status == 403, "a publisher cannot bypass")
        #expect(try publish("alice", "?validateOnly=true").status == 200, "validating changes nothing")
        #expect(try activeValue() == "v1")
        #expect(try publish("carol", "?bypassApproval=true").status == 200)
        #expect(try activeValue() == "direct")
        let log = try server.admin("GET", "/v1/auditLog?action=approval.bypass").json()
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.count == 1 && (entries.first?["actor"] as? [String: Any])?["id"] as? String == "token:carol@example.com")
    }

    @Test func approvalsComeFromDistinctPublishersNotTheAuthor() throws {
        try requireApprovals(2)
        let id = try propose("v2")
        let approve = { (token: String) in try self.call(token, "POST", Self.base + "/changeRequests/\(id):approve", #"{"comment":"ok"}"#) }
        #expect(try approve("editor").status == 403, "an editor does not approve")
        #expect(try approve("viewer").status == 403)
        #expect(try approve("alice").status == 200)
        #expect(try status(id) == "open", "one of two approvals")
        #expect(try approve("alice").status == 409, "approvals come from distinct people")
        #expect(try call("alice", "POST", Self.base + "/changeRequests/\(id):apply").status == 403, "not approved yet")
        #expect(try approve("bob").status == 200)
        #expect(try status(id) == "approved")
        // Editing clears the approvals.
        let edited = try call("editor", "PATCH", Self.base + "/changeRequests/\(id)", #"{"template":\#(Templates.single("v2b"))}"#)
        let approvals = try edited.json()["approvals"] as? [Any]
        #expect(edited.status == 200 && approvals?.isEmpty == true, "\(edited.text)")
        #expect(try call("bob", "PATCH", Self.base + "/changeRequests/\(id)", #"{"description":"mine now"}"#).status == 403,
                "only the author or an admin edits")
        #expect(try approve("alice").status == 200)
        #expect(try approve("bob").status == 200)
        let applied = try call("alice", "POST", Self.base + "/changeRequests/\(id):apply")
        #expect(applied.status == 200, "\(applied.text)")
        #expect(try activeValue() == "v2b")
        let request = try call("viewer", "GET", Self.base + "/changeRequests/\(id)").json()
        #expect(request["status"] as? String == "applied" && (request["appliedVersion"] as? NSNumber)?.intValue == 2)
        #expect((request["appliedBy"] as? [String: Any])?["principal"] as? String == "token:alice@example.com", "\(request)")
        #expect((try call("alice", "POST", Self.base + "/changeRequests/\(id):apply")).status == 409, "applied once")
        let version = try call("viewer", "GET", "/v1/projects/demo/remoteConfig").json()["version"] as? [String: Any]
        #expect((version?["updateUser"] as? [String: Any])?["email"] as? String == "alice@example.com")
        let actions = try (server.admin("GET", "/v1/auditLog?project=demo").json()["entries"] as? [[String: Any]] ?? [])
            .compactMap { $0["action"] as? String }
        #expect(actions.contains("changeRequest.create") && actions.contains("changeRequest.approve")
                && actions.contains("changeRequest.edit") && actions.contains("changeRequest.apply"), "\(actions)")
    }

    /// Who may approve and who may apply, role by role (the author, bob, is a publisher).
    @Test func whoMayApproveAndApply() throws {
        try requireApprovals(1)
        let table: [(token: String, approve: Int, apply: Int)] = [
            ("viewer", 403, 403), ("editor", 403, 403), ("bob", 403, 200), ("alice", 200, 200), ("carol", 200, 200),
        ]
        for row in table {
            let id = try propose("by-\(row.token)", as: "bob")
            let approved = try call(row.token, "POST", Self.base + "/changeRequests/\(id):approve")
            #expect(approved.status == row.approve, "\(row.token) approves: \(approved.text)")
            if row.approve != 200 { #expect(try call("alice", "POST", Self.base + "/changeRequests/\(id):approve").status == 200) }
            let applied = try call(row.token, "POST", Self.base + "/changeRequests/\(id):apply")
            #expect(applied.status == row.apply, "\(row.token) applies: \(applied.text)")
            if row.apply == 200 { #expect(try activeValue() == "by-\(row.token)") }
        }
    }

    @Test func selfApprovalWhereThePolicyAllowsIt() throws {
        try requireApprovals(1, selfApproval: false)
        let id = try propose("v2", as: "alice")
        #expect(try call("alice", "POST", Self.base + "/changeRequests/\(id):approve").status == 403)
        try requireApprovals(1, selfApproval: true)
        #expect(try call("alice", "POST", Self.base + "/changeRequests/\(id):approve").status == 200)
        #expect(try status(id) == "approved")
    }

    @Test func aRequestWhoseTemplateMovedConflictsAndShowsTheDiffAgainstTheActiveVersion() throws {
        try requireApprovals(1)
        let id = try propose("v2")
        #expect(try call("alice", "POST", Self.base + "/changeRequests/\(id):approve").status == 200)
        #expect(try call("carol", "PUT", "/v1/projects/demo/remoteConfig?bypassApproval=true", Templates.single("meanwhile"),
                         headers: [("If-Match", "*")]).status == 200)
        let conflicted = try call("alice", "POST", Self.base + "/changeRequests/\(id):apply")
        #expect(conflicted.status == 409, "\(conflicted.text)")
        let body = try conflicted.json()
        #expect(body["status"] as? String == "conflicted" && (body["conflictVersion"] as? NSNumber)?.intValue == 2)
        #expect(body["diffAgainstActive"] != nil)
        #expect(try activeValue() == "meanwhile", "nothing applied")
        // Edited onto the active version, approved again, it applies.
        #expect(try call("editor", "PATCH", Self.base + "/changeRequests/\(id)", #"{"template":\#(Templates.single("v3"))}"#).status == 200)
        #expect(try call("bob", "POST", Self.base + "/changeRequests/\(id):approve").status == 200)
        #expect(try call("bob", "POST", Self.base + "/changeRequests/\(id):apply").status == 200)
        #expect(try activeValue() == "v3")
    }

    @Test func anAdminBypassesTheApprovalsOfARequestAndItIsAudited() throws {
        try requireApprovals(2)
        let id = try propose("urgent")
        #expect(try call("alice", "POST", Self.base + "/changeRequests/\(id):apply", #"{"bypassApproval":"true"}"#).status == 403)
        let applied = try call("carol", "POST", Self.base + "/changeRequests/\(id):apply", #"{"bypassApproval":"true"}"#)
        #expect(applied.status == 200, "\(applied.text)")
        #expect(try activeValue() == "urgent")
        let request = try call("viewer", "GET", Self.base + "/changeRequests/\(id)").json()
        #expect(request["bypassedApproval"] as? Bool == true)
        let bypass = try server.admin("GET", "/v1/auditLog?action=approval.bypass").json()["entries"] as? [[String: Any]]
        #expect(bypass?.first?["target"] as? String == id)
    }

    @Test func aRollbackGoesThroughARequestToo() throws {
        try requireApprovals(1)
        #expect(try call("carol", "PUT", "/v1/projects/demo/remoteConfig?bypassApproval=true", Templates.single("v2"),
                         headers: [("If-Match", "*")]).status == 200)
        let made = try call("editor", "POST", Self.base + "/changeRequests", #"{"rollbackTo":1,"description":"back"}"#)
        let id = try #require(try made.json()["id"] as? String)
        #expect(try call("alice", "POST", Self.base + "/changeRequests/\(id):approve").status == 200)
        #expect(try call("alice", "POST", Self.base + "/changeRequests/\(id):apply").status == 200)
        #expect(try activeValue() == "v1")
    }

    /// Each canary step through an approved request: start, share, promote; a step of a canary
    /// that ended meanwhile conflicts.
    @Test func canaryStepsGoThroughRequests() throws {
        try requireApprovals(1)
        func proposeAndApply(_ body: String) throws -> TestResponse {
            let made = try call("editor", "POST", Self.base + "/changeRequests", body)
            #expect(made.status == 200, "\(made.text)")
            let id = try #require(try made.json()["id"] as? String)
            #expect(try call("alice", "POST", Self.base + "/changeRequests/\(id):approve").status == 200)
            return try call("alice", "POST", Self.base + "/changeRequests/\(id):apply")
        }
        #expect(try call("alice", "POST", "/v1/projects/demo/remoteConfig:canary", #"{"percent":50}"#, headers: [("If-Match", "*")])
            .status == 403, "a direct canary step is refused too")
        let started = try proposeAndApply(#"{"template":\#(Templates.single("canary")),"canary":{"step":"start","percent":10}}"#)
        #expect(started.status == 200, "\(started.text)")
        var canary = try call("viewer", "GET", "/v1/projects/demo/remoteConfig:canary").json()
        #expect(canary["canaryVersion"] as? String == "2" && canary["percent"] as? Double == 10)
        let abortLater = try call("editor", "POST", Self.base + "/changeRequests", #"{"canary":{"step":"abort"}}"#)
        let abortID = try #require(try abortLater.json()["id"] as? String)
        #expect(try proposeAndApply(#"{"canary":{"step":"share","percent":50}}"#).status == 200)
        canary = try call("viewer", "GET", "/v1/projects/demo/remoteConfig:canary").json()
        #expect(canary["percent"] as? Double == 50)
        let promoted = try proposeAndApply(#"{"canary":{"step":"promote"},"description":"everyone"}"#)
        #expect(promoted.status == 200, "\(promoted.text)")
        #expect(try activeValue() == "canary")
        #expect(try call("viewer", "GET", "/v1/projects/demo/remoteConfig:canary").status == 404)
        // The abort proposed while the canary ran conflicts now that it is over.
        #expect(try call("alice", "POST", Self.base + "/changeRequests/\(abortID):approve").status == 200)
        #expect(try call("alice", "POST", Self.base + "/changeRequests/\(abortID):apply").status == 409)
        #expect(try status(abortID) == "conflicted")
        #expect(try call("editor", "POST", Self.base + "/changeRequests", #"{"canary":{"step":"share","percent":60}}"#).status == 400,
                "no canary runs")
    }

    @Test func cancelledAndRejectedRequestsTakeNoMoreSteps() throws {
        try requireApprovals(1)
        let first = try propose("a")
        #expect(try call("bob", "POST", Self.base + "/changeRequests/\(first):cancel").status == 403, "not the author")
        #expect(try call("editor", "POST", Self.base + "/changeRequests/\(first):cancel").status == 200)
        #expect(try call("alice", "POST", Self.base + "/changeRequests/\(first):approve").status == 409)
        let second = try propose("b")
        #expect(try call("alice", "POST", Self.base + "/changeRequests/\(second):reject", #"{"comment":"no"}"#).status == 200)
        #expect(try status(second) == "rejected")
        #expect(try call("alice", "POST", Self.base + "/changeRequests/\(second):apply", #"{"bypassApproval":"true"}"#).status == 409)
        let listed = try call("viewer", "GET", Self.base + "/changeRequests?status=rejected").json()["changeRequests"] as? [[String: Any]]
        #expect(listed?.compactMap { $0["id"] as? String } == [second])
    }

    @Test func badInputIsAPreciseErrorAndChangesNothing() throws {
        let cases: [(String, String, String, Int)] = [
            ("POST", "/changeRequests", "{", 400),
            ("POST", "/changeRequests", "[]", 400),
            ("POST", "/changeRequests", #"{"description":"nothing"}"#, 400),
            ("POST", "/changeRequests", #"{"template":{"parameters":{"k":{"valueType":"NUMBER","defaultValue":{"value":"x"}}}}}"#, 400),
            ("POST", "/changeRequests", #"{"template":{},"surprise":1}"#, 400),
            ("POST", "/changeRequests", #"{"rollbackTo":"one"}"#, 400),
            ("POST", "/changeRequests", #"{"template":{},"scheduleTime":"2001-01-01T00:00:00Z"}"#, 400),
            ("POST", "/changeRequests", #"{"template":{},"scheduleTime":"tomorrow"}"#, 400),
            ("GET", "/changeRequests?status=lost", "", 400),
            ("GET", "/changeRequests/999", "", 404),
            ("GET", "/changeRequests/abc", "", 404),
            ("POST", "/changeRequests/1:teleport", "", 404),
            ("PUT", "/changePolicy", #"{"requiredApprovals":11}"#, 400),
            ("PUT", "/changePolicy", #"{"requiredApprovals":"two"}"#, 400),
            ("DELETE", "/changeRequests", "", 405),
        ]
        for (method, path, body, status) in cases {
            let response = try call("carol", method, Self.base + path, body)
            #expect(response.status == status, "\(method) \(path) \(body): \(response.status) \(response.text)")
            #expect(response.text.contains("\"error\""), "\(method) \(path): \(response.text)")
        }
        let listed = try call("viewer", "GET", Self.base + "/changeRequests").json()["changeRequests"] as? [Any]
        #expect(listed?.isEmpty == true)
        #expect(try call("viewer", "GET", Self.base + "/changePolicy").json()["requiredApprovals"] as? Int == 0)
    }
}
