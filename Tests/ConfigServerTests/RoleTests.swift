import ConfigServer
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
        var description: String { "\(method) \(target)" }
    }

    static let template = "/v1/projects/demo/remoteConfig"
    static let calls: [Call] = [
        Call(method: "GET", target: template, needs: "viewer"),
        Call(method: "GET", target: template + ":listVersions", needs: "viewer"),
        Call(method: "GET", target: template + ":diff?from=1", needs: "viewer"),
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
            let held = role.flatMap { Self.order.firstIndex(of: $0) }
            if let held, held >= needed {
                #expect(response.status != 403 && response.status != 401, "\(token): \(response.status) \(response.text)")
            } else {
                #expect(response.status == 403, "\(token): \(response.status) \(response.text)")
                #expect(response.errorStatus == "PERMISSION_DENIED")
                #expect(response.text.contains("needs the role '\(call.needs)'"), "\(token): \(response.text)")
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
        let refused = try call(Self.calls[9], token: "viewer-token")
        #expect(refused.text.contains("'viewer-token' holds 'viewer' there"), "\(refused.text)")
        let none = try call(Self.calls[0], token: "elsewhere-token")
        #expect(none.text.contains("'elsewhere-token' holds no role there"), "\(none.text)")
    }

    /// A fetch with a token instead of an API key needs a role on the project too.
    @Test func aTokenFetchesOnlyWhereItHoldsARole() throws {
        let body = "{\"appInstanceId\":\"i\",\"appId\":\"1:424242:web:ab\"}"
        let fetch = "/v1/projects/demo/namespaces/firebase:fetch"
        #expect(try server.request("POST", fetch, headers: [("Authorization", "Bearer viewer-token")], body: body).status == 200)
        #expect(try server.request("POST", fetch, headers: [("Authorization", "Bearer elsewhere-token")], body: body).status == 401)
    }
}
