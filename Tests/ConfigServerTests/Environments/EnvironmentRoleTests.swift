import Foundation
import Testing

/// A membership's roles per environment (docs/access.md, "Roles per environment"): a call on a
/// template is checked on its environment, every other call of the project on the project's role.
@Suite(.timeLimit(.minutes(1))) struct EnvironmentRoleTests {
    let server: TestServer
    let token: String

    init() throws {
        server = try TestServer()
        #expect(try server.admin("POST", "/v1/projects/demo/environments", body: #"{"id":"staging"}"#).status == 200)
        #expect(try server.admin("POST", "/v1/principals", body: #"{"displayName":"Release bot"}"#).status == 200)
        let member = try server.admin("PUT", "/v1/projects/demo/members/svc-release-bot",
                                      body: #"{"role":"viewer","environments":{"staging":"publisher"}}"#)
        #expect(member.status == 200, "\(member.text)")
        let made = try server.admin("POST", "/v1/tokens", body: #"{"principal":"svc-release-bot","name":"ci"}"#)
        token = try #require(try made.json()["token"] as? String)
        try server.publish(Templates.single("prod"))
    }

    func call(_ method: String, _ target: String, body: String = "", token: String? = nil) throws -> TestResponse {
        try server.request(method, target, headers: [("Authorization", "Bearer \(token ?? self.token)"), ("If-Match", "*")], body: body)
    }

    @Test func aPublisherOnStagingIsAViewerOfProduction() throws {
        #expect(try call("PUT", "/v1/projects/demo/environments/staging/remoteConfig", body: Templates.single("stage")).status == 200)
        let production = try call("PUT", "/v1/projects/demo/remoteConfig", body: Templates.single("no"))
        #expect(production.status == 403 && production.text.contains("needs the role 'publisher' on project 'demo'"), "\(production.text)")
        #expect(try call("GET", "/v1/projects/demo/remoteConfig").status == 200)
        let promoted = try call("POST", "/v1/projects/demo/environments/production/remoteConfig:promoteFrom", body: #"{"from":"staging"}"#)
        #expect(promoted.status == 403, "\(promoted.text)")
        #expect(try call("POST", "/v1/projects/demo/environments/staging/remoteConfig:promoteFrom", body: #"{"from":"production"}"#)
            .status == 200, "promoting into staging is publishing there")
        #expect(try call("GET", "/v1/projects/demo/members").status == 403, "the project's own calls take the project's role")
        let me = try call("GET", "/v1/me").json()
        #expect(me["environmentRoles"] as? [String: [String: String]] == ["demo": ["staging": "publisher"]])
        let members = try #require(try server.admin("GET", "/v1/projects/demo/members").json()["members"] as? [[String: Any]])
        #expect(members.first { $0["principal"] as? String == "svc-release-bot" }?["environments"] as? [String: String] == ["staging": "publisher"])
    }

    @Test func aLimitedTokenHoldsNoMoreOnAnEnvironmentThanOnItsProject() throws {
        let made = try server.admin("POST", "/v1/tokens", body: #"{"principal":"svc-release-bot","name":"read","roles":{"demo":"editor"}}"#)
        let limited = try #require(try made.json()["token"] as? String)
        let refused = try call("PUT", "/v1/projects/demo/environments/staging/remoteConfig", body: Templates.single("x"), token: limited)
        #expect(refused.status == 403 && refused.text.contains("environment 'staging' of project 'demo'"), "\(refused.text)")
    }

    @Test func aMembershipNamesOnlyTheProjectsEnvironmentsAndRoles() throws {
        for body in [#"{"role":"viewer","environments":{"qa":"publisher"}}"#, #"{"role":"viewer","environments":{"staging":"god"}}"#,
                     #"{"role":"viewer","environments":{"staging":1}}"#] {
            #expect(try server.admin("PUT", "/v1/projects/demo/members/svc-release-bot", body: body).status == 400, "\(body)")
        }
    }
}
