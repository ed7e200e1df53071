import ConfigServer
import ServerCore
import Testing

/// Every call of the management API against every role, end to end: a token holding the role
/// the call needs (or more) gets through; any other gets a 403 in Google's shape naming the
/// role it lacks.
@Suite(.timeLimit(.minutes(1))) final class RoleTests {
    let server: TestServer
    /// Token → the role it holds on `demo` (nil: a role on another project only).
    static let tokens: [(token: String, role: String?)] = [
        ("viewer-token", "viewer"), ("editor-token", "editor"), ("publisher-token", "publisher"),
        ("admin-token", "admin"), ("elsewhere-token", nil),
    ]

    init() throws {
        server = try TestServer { configuration in
            for (token, role) in Self.tokens {
                let roles = role.map { ["demo": $0] } ?? ["other": "admin"]
                configuration.adminTokens.append(AdminTokenDeclaration(name: token, token: token, roles: roles))
            }
        }
        try server.publish(Templates.single("a"))
        try server.publish(Templates.single("b"))
    }

    /// One call and the role it needs.
    struct Call: CustomStringConvertible {
        let method: String
        let target: String
        var body = ""
        var ifMatch: String?
        let needs: String
        /// Beyond one project (principals, tokens): the role on any project will do.
        var anyProject = false
        var description: String { "\(method) \(target)" }
    }

    static let template = "/v1/projects/demo/remoteConfig"
    static let changes = "/v1/projects/demo/namespaces/firebase"
    static let calls: [Call] = [
        Call(method: "GET", target: template, needs: "viewer"),
        Call(method: "GET", target: template + ":listVersions", needs: "viewer"),
        Call(method: "GET", target: template + ":diff?from=1", needs: "viewer"),
        Call(method: "POST", target: template + ":diff", body: Templates.single("d"), needs: "viewer"),
        Call(method: "POST", target: template + ":check", body: Templates.single("d"), needs: "viewer"),
        Call(method: "POST", target: template + ":evaluate", body: "{\"appInstanceId\":\"x\"}", needs: "viewer"),
        Call(method: "GET", target: template + ":adoption", needs: "viewer"),
        Call(method: "GET", target: template + ":downloadDefaults", needs: "viewer"),
        Call(method: "GET", target: template + ":canary", needs: "viewer"),
        Call(method: "GET", target: "/v1/projects/demo/namespaces/firebase-server/serverRemoteConfig", needs: "viewer"),
        Call(method: "PUT", target: template + "?validateOnly=true", body: Templates.single("c"), ifMatch: "*", needs: "editor"),
        Call(method: "PUT", target: template, body: Templates.single("c"), ifMatch: "*", needs: "publisher"),
        Call(method: "POST", target: template + ":rollback", body: "{\"versionNumber\":1}", needs: "publisher"),
        Call(method: "POST", target: template + ":canary", body: "{\"percent\":5}", ifMatch: "*", needs: "publisher"),
        Call(method: "POST", target: template + ":promote", ifMatch: "*", needs: "publisher"),
        Call(method: "POST", target: template + ":abort", ifMatch: "*", needs: "publisher"),
        Call(method: "POST", target: "/v1/projects/demo/apiKeys", body: "{\"name\":\"ios\"}", needs: "admin"),
        Call(method: "POST", target: "/v1/projects", body: "{\"projectId\":\"p9\",\"projectNumber\":\"909\"}", needs: "owner"),
        Call(method: "GET", target: "/metrics", needs: "owner"),
        Call(method: "GET", target: "/v1/projects/demo/apiKeys", needs: "admin"),
        Call(method: "DELETE", target: "/v1/projects/demo/apiKeys/0123456789ab", needs: "admin"),
        Call(method: "GET", target: "/v1/projects/demo/members", needs: "admin"),
        Call(method: "PUT", target: "/v1/projects/demo/members/svc-ci-bot", body: "{\"role\":\"viewer\"}", needs: "admin"),
        Call(method: "DELETE", target: "/v1/projects/demo/members/svc-ci-bot", needs: "admin"),
        Call(method: "GET", target: "/v1/auditLog?project=demo", needs: "admin"),
        Call(method: "GET", target: "/v1/auditLog", needs: "owner"),
        Call(method: "GET", target: "/v1/principals", needs: "admin", anyProject: true),
        Call(method: "POST", target: "/v1/principals", body: "{\"displayName\":\"CI bot\"}", needs: "admin", anyProject: true),
        Call(method: "GET", target: "/v1/tokens", needs: "admin", anyProject: true),
        Call(method: "DELETE", target: "/v1/tokens/0123456789ab", needs: "admin", anyProject: true),
        Call(method: "GET", target: "/v1/sessions", needs: "viewer", anyProject: true),
        Call(method: "GET", target: changes + "/changePolicy", needs: "viewer"),
        Call(method: "PUT", target: changes + "/changePolicy", body: "{\"requiredApprovals\":0}", needs: "admin"),
        Call(method: "GET", target: changes + "/changeRequests", needs: "viewer"),
        Call(method: "POST", target: changes + "/changeRequests", body: "{\"rollbackTo\":1}", needs: "editor"),
        Call(method: "GET", target: changes + "/changeRequests/1", needs: "viewer"),
        Call(method: "POST", target: changes + "/changeRequests/999:approve", needs: "publisher"),
        Call(method: "POST", target: changes + "/changeRequests/999:reject", needs: "publisher"),
        Call(method: "POST", target: changes + "/changeRequests/999:schedule", needs: "publisher"),
        Call(method: "POST", target: changes + "/changeRequests/999:apply", needs: "publisher"),
        Call(method: "GET", target: "/v1/projects/demo/environments", needs: "viewer"),
        Call(method: "POST", target: "/v1/projects/demo/environments", body: "{\"id\":\"qa\"}", needs: "admin"),
        Call(method: "PATCH", target: "/v1/projects/demo/environments/production", body: "{\"displayName\":\"Live\"}", needs: "admin"),
        Call(method: "GET", target: template + ":compare?with=production", needs: "viewer"),
        Call(method: "POST", target: template + ":promoteFrom", body: "{\"from\":\"staging\"}", needs: "publisher"),
        Call(method: "GET", target: "/v1/projects/demo/webhooks", needs: "admin"),
        Call(method: "POST", target: "/v1/projects/demo/webhooks", body: "{}", needs: "admin"),
    ]

    static let order = ["viewer", "editor", "publisher", "admin", "owner"]

    func call(_ call: Call, token: String) throws -> TestResponse {
        var headers = [("Authorization", "Bearer \(token)")]
        if let ifMatch = call.ifMatch { headers.append(("If-Match", ifMatch)) }
        return try server.request(call.method, call.target, headers: headers, body: call.body)
    }

    @Test(arguments: calls) func everyRoleAgainstTheCall(_ call: Call) throws {
        let needed = try #require(Self.order.firstIndex(of: call.needs))
        for (token, role) in Self.tokens + [(TestServer.adminToken, "owner")] {
            let response = try self.call(call, token: token)
            // `elsewhere-token` is an admin of another project.
            let held = (role ?? (call.anyProject ? "admin" : nil)).flatMap { Self.order.firstIndex(of: $0) }
            if let held, held >= needed {
                #expect(response.status != 403 && response.status != 401, "\(token): \(response.status) \(response.text)")
            } else {
                #expect(response.status == 403, "\(token): \(response.status) \(response.text)")
                #expect(response.errorStatus == "PERMISSION_DENIED")
                #expect(response.text.contains("needs the role '\(call.needs)'"), "\(token): \(response.text)")
                if call.anyProject { #expect(response.text.contains("on at least one project"), "\(response.text)") }
            }
        }
    }

    @Test func theProjectListShowsWhatTheTokenHoldsARoleOn() throws {
        let mine = try call(Call(method: "GET", target: "/v1/projects", needs: "viewer"), token: "viewer-token")
        #expect(mine.status == 200 && mine.text.contains("\"demo\""))
        let elsewhere = try call(Call(method: "GET", target: "/v1/projects", needs: "viewer"), token: "elsewhere-token")
        #expect(elsewhere.status == 200 && !elsewhere.text.contains("\"demo\""), "\(elsewhere.text)")
    }

    @Test func aRefusalSaysWhatTheTokenHolds() throws {
        let publish = try #require(Self.calls.first { $0.method == "PUT" && $0.needs == "publisher" })
        let refused = try call(publish, token: "viewer-token")
        #expect(refused.text.contains("'viewer-token' holds 'viewer' there"), "\(refused.text)")
        let none = try call(Self.calls[0], token: "elsewhere-token")
        #expect(none.text.contains("'elsewhere-token' holds no role there"), "\(none.text)")
    }

    /// A project's admin makes tokens for service accounts, limited to projects it administers,
    /// and sees and revokes only those.
    @Test func aProjectAdminMakesTokensForItsProjectOnly() throws {
        func call(_ method: String, _ target: String, _ body: String = "", token: String = "admin-token") throws -> TestResponse {
            try server.request(method, target, headers: [("Authorization", "Bearer \(token)")], body: body)
        }
        #expect(try call("POST", "/v1/principals", #"{"displayName":"Deploy bot"}"#).status == 200)
        #expect(try call("POST", "/v1/principals", #"{"kind":"person","displayName":"Eve","email":"eve@example.com"}"#).status == 403)
        #expect(try call("POST", "/v1/principals", #"{"displayName":"Root bot","owner":"true"}"#).status == 403)
        #expect(try call("PUT", "/v1/projects/demo/members/svc-deploy-bot", #"{"role":"publisher"}"#).status == 200)
        let made = try call("POST", "/v1/tokens", #"{"principal":"svc-deploy-bot","name":"ci","roles":{"demo":"publisher"}}"#)
        #expect(made.status == 200, "\(made.text)")
        for refused in [#"{"principal":"svc-deploy-bot","name":"x","roles":{"other":"viewer"}}"#,
                        #"{"principal":"svc-deploy-bot","name":"x","roles":{"*":"viewer"}}"#,
                        #"{"principal":"svc-deploy-bot","name":"x"}"#] {
            #expect(try call("POST", "/v1/tokens", refused).status == 403, "\(refused)")
        }
        let secret = try #require(made.json()["token"] as? String)
        let id = try #require(made.json()["id"] as? String)
        #expect(try call("PUT", Self.template, Templates.single("d"), token: secret).status != 403)
        // An owner's token for the same account, unlimited, is neither listed to nor revocable by the admin.
        let owners = try call("POST", "/v1/tokens", #"{"principal":"svc-deploy-bot","name":"all"}"#, token: TestServer.adminToken)
        let ownersID = try #require(owners.json()["id"] as? String)
        let listed = try call("GET", "/v1/tokens")
        #expect(listed.text.contains(id) && !listed.text.contains(ownersID), "\(listed.text)")
        #expect(try call("DELETE", "/v1/tokens/\(ownersID)").status == 404)
        #expect(try call("GET", "/v1/tokens", token: "elsewhere-token").text.contains(id) == false)
        #expect(try call("DELETE", "/v1/tokens/\(id)").status == 204)
        #expect(try call("GET", Self.template, token: secret).status == 403)
    }

    /// A fetch with a token instead of an API key needs a role on the project too.
    @Test func aTokenFetchesOnlyWhereItHoldsARole() throws {
        let body = "{\"appInstanceId\":\"i\",\"appId\":\"1:424242:web:ab\"}"
        let fetch = "/v1/projects/demo/namespaces/firebase:fetch"
        #expect(try server.request("POST", fetch, headers: [("Authorization", "Bearer viewer-token")], body: body).status == 200)
        #expect(try server.request("POST", fetch, headers: [("Authorization", "Bearer elsewhere-token")], body: body).status == 401)
    }
}
