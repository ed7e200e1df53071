import ConfigServer
import Foundation
import Testing

/// Principals, memberships and tokens made through the API, end to end.
@Suite(.timeLimit(.minutes(1))) final class AccessAPITests {
    let server: TestServer

    init() throws {
        server = try TestServer()
    }

    /// Makes service account `svc-ci` with `role` on `demo` and a token for it; returns the token.
    func serviceToken(role: String = "publisher") throws -> (id: String, secret: String) {
        let principal = try server.admin("POST", "/v1/principals", body: #"{"kind":"service","displayName":"CI"}"#)
        #expect(principal.status == 200, "\(principal.text)")
        #expect(try principal.json()["id"] as? String == "svc-ci")
        let member = try server.admin("PUT", "/v1/projects/demo/members/svc-ci", body: "{\"role\":\"\(role)\"}")
        #expect(member.status == 200, "\(member.text)")
        let token = try server.admin("POST", "/v1/tokens", body: #"{"principal":"svc-ci","name":"deploy"}"#)
        #expect(token.status == 200, "\(token.text)")
        let json = try token.json()
        return (try #require(json["id"] as? String), try #require(json["token"] as? String))
    }

    func asToken(_ secret: String, _ method: String, _ target: String, headers: [(String, String)] = [], body: String = "") throws -> TestResponse {
        try server.request(method, target, headers: [("Authorization", "Bearer \(secret)")] + headers, body: body)
    }

    @Test func aServiceAccountsTokenActsWithItsRoleAndIsRecordedAsIt() throws {
        let (_, secret) = try serviceToken()
        #expect(secret.hasPrefix("rcs_pat_"))
        let published = try asToken(secret, "PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "*")], body: Templates.single("a"))
        #expect(published.status == 200, "\(published.text)")
        let version = try #require(try published.json()["version"] as? [String: Any])
        #expect((version["updateUser"] as? [String: Any])?["email"] as? String == "svc-ci@example.com")
        let keys = try asToken(secret, "POST", "/v1/projects/demo/apiKeys", body: #"{"name":"ios"}"#)
        #expect(keys.status == 403 && keys.text.contains("needs the role 'admin'"), "\(keys.text)")
        let members = try server.admin("GET", "/v1/projects/demo/members")
        #expect(members.text.contains(#""principal":"svc-ci""#) && members.text.contains(#""role":"publisher""#), "\(members.text)")
    }

    @Test func aTokenIsShownOnceAndRevokedAtOnce() throws {
        let (id, secret) = try serviceToken()
        let list = try server.admin("GET", "/v1/tokens")
        #expect(list.status == 200 && list.text.contains(id))
        #expect(!list.text.contains(secret) && !list.text.contains("sha256"), "never the secret or its hash: \(list.text)")
        #expect(try asToken(secret, "GET", "/v1/projects/demo/remoteConfig").status == 200)
        #expect(try server.admin("DELETE", "/v1/tokens/\(id)").status == 204)
        let refused = try asToken(secret, "GET", "/v1/projects/demo/remoteConfig")
        #expect(refused.status == 403 && refused.errorStatus == "PERMISSION_DENIED", "\(refused.text)")
        #expect(try server.admin("GET", "/v1/tokens").text.contains("\"revokeTime\""))
    }

    @Test func aRoleTakenAwayIsGoneForTheNextCall() throws {
        let (_, secret) = try serviceToken(role: "viewer")
        #expect(try asToken(secret, "GET", "/v1/projects/demo/remoteConfig").status == 200)
        #expect(try server.admin("DELETE", "/v1/projects/demo/members/svc-ci").status == 204)
        let refused = try asToken(secret, "GET", "/v1/projects/demo/remoteConfig")
        #expect(refused.status == 403 && refused.text.contains("holds no role there"), "\(refused.text)")
    }

    @Test func aPersonPublishesUnderTheirEmail() throws {
        #expect(try server.admin("POST", "/v1/principals", body: #"{"kind":"person","displayName":"Ada","email":"ada@acme.com"}"#).status == 200)
        #expect(try server.admin("PUT", "/v1/projects/demo/members/ada@acme.com", body: #"{"role":"publisher"}"#).status == 200)
        let token = try #require(try server.admin("POST", "/v1/tokens", body: #"{"principal":"ada@acme.com","name":"laptop"}"#).json()["token"] as? String)
        let published = try asToken(token, "PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "*")], body: Templates.single("b"))
        let version = try #require(try published.json()["version"] as? [String: Any])
        #expect((version["updateUser"] as? [String: Any])?["email"] as? String == "ada@acme.com")
    }

    @Test func principalsAndTokensNeedAnAdminOfSomeProject() throws {
        let (_, publisher) = try serviceToken(role: "publisher")
        for (method, target) in [("GET", "/v1/principals"), ("POST", "/v1/tokens"), ("GET", "/v1/tokens")] {
            let refused = try asToken(publisher, method, target, body: "{}")
            #expect(refused.status == 403 && refused.text.contains("needs the role 'admin' on at least one project"),
                    "\(method) \(target): \(refused.text)")
        }
        // The same token once its account administers the project.
        #expect(try server.admin("PUT", "/v1/projects/demo/members/svc-ci", body: #"{"role":"admin"}"#).status == 200)
        let admin = publisher
        #expect(try asToken(admin, "GET", "/v1/principals").status == 200)
        // A project admin names the members of its project.
        #expect(try asToken(admin, "GET", "/v1/projects/demo/members").status == 200)
    }

    /// A token limited to fewer roles than its principal holds at most those: the lower of the
    /// two on each project it names, nothing elsewhere.
    @Test func aTokenCanHoldLessThanItsPrincipal() throws {
        _ = try serviceToken(role: "admin")
        let made = try server.admin("POST", "/v1/tokens", body: #"{"principal":"svc-ci","name":"ro","roles":{"demo":"viewer","other":"admin"}}"#)
        let json = try made.json()
        #expect((json["roles"] as? [String: String]) == ["demo": "viewer", "other": "admin"])
        let secret = try #require(json["token"] as? String)
        #expect(try asToken(secret, "GET", "/v1/projects/demo/remoteConfig").status == 200)
        let refused = try asToken(secret, "PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "*")], body: Templates.single("x"))
        #expect(refused.status == 403 && refused.text.contains("holds 'viewer' there"), "\(refused.text)")
        // An owner's token limited to a project is no longer an owner.
        #expect(try server.admin("POST", "/v1/principals", body: #"{"displayName":"Root","owner":true}"#).status == 200)
        let limited = try #require(try server.admin("POST", "/v1/tokens", body: #"{"principal":"svc-root","name":"l","roles":{"demo":"publisher"}}"#)
            .json()["token"] as? String)
        #expect(try asToken(limited, "PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "*")], body: Templates.single("y")).status == 200)
        #expect(try asToken(limited, "GET", "/v1/tokens").status == 403)
        #expect(try server.admin("POST", "/v1/tokens", body: #"{"principal":"svc-ci","name":"x","roles":{"demo":"owner"}}"#).status == 400)
    }

    @Test func credentialsSayWhoTheyAreAndWhatTheyHold() throws {
        let (_, secret) = try serviceToken(role: "editor")
        let me = try asToken(secret, "GET", "/v1/me").json()
        #expect(me["id"] as? String == "svc-ci" && me["owner"] as? Bool == false)
        #expect((me["roles"] as? [String: String]) == ["demo": "editor"])
        let owner = try server.admin("GET", "/v1/me").json()
        #expect(owner["id"] as? String == "token:tester" && owner["owner"] as? Bool == true)
        #expect(try server.request("GET", "/v1/me").status == 401)
    }

    /// A version published through the console says so (`updateOrigin`), as Firebase's do.
    @Test func theConsolesPublishesAreRecordedAsSuch() throws {
        let published = try server.admin("PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "*"), ("X-RCS-Origin", "console")],
                                         body: Templates.single("a"))
        #expect((try published.json()["version"] as? [String: Any])?["updateOrigin"] as? String == "CONSOLE")
        let api = try server.admin("PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "*")], body: Templates.single("b"))
        #expect((try api.json()["version"] as? [String: Any])?["updateOrigin"] as? String == "REST_API")
    }

    @Test func badInputIsRefusedAndChangesNothing() throws {
        _ = try serviceToken()
        let cases: [(String, String, String, Int)] = [
            ("PUT", "/v1/projects/demo/members/svc-ci", #"{"role":"superuser"}"#, 400),
            ("PUT", "/v1/projects/demo/members/svc-ci", #"{"role":"owner"}"#, 400),
            ("PUT", "/v1/projects/demo/members/svc-nobody", #"{"role":"viewer"}"#, 404),
            ("POST", "/v1/principals", #"{"kind":"service","displayName":"CI"}"#, 409),
            ("POST", "/v1/principals", #"{"kind":"robot","displayName":"x"}"#, 400),
            ("POST", "/v1/principals", #"{"kind":"person","displayName":"x"}"#, 400),
            ("POST", "/v1/principals", "{\"displayName\":\"\(String(repeating: "x", count: 101))\"}", 400),
            ("POST", "/v1/principals", #"{"kind":"service","displayName":"x","id":"Not Valid"}"#, 400),
            ("POST", "/v1/tokens", #"{"principal":"svc-nobody","name":"x"}"#, 404),
            ("POST", "/v1/tokens", #"{"principal":"svc-ci"}"#, 400),
            ("POST", "/v1/tokens", #"{"principal":"svc-ci","name":"x","expireTime":"2001-01-01T00:00:00Z"}"#, 400),
            ("POST", "/v1/tokens", #"{"principal":"svc-ci","name":"x","expireTime":"soon"}"#, 400),
            ("DELETE", "/v1/tokens/nope", "", 404),
            ("POST", "/v1/principals", "{not json", 400),
        ]
        let before = try server.admin("GET", "/v1/tokens").text
        for (method, target, body, status) in cases {
            let response = try server.admin(method, target, body: body)
            #expect(response.status == status && response.errorStatus != nil, "\(method) \(target) \(body): \(response.status) \(response.text)")
        }
        #expect(try server.admin("GET", "/v1/tokens").text == before)
        for token in ["rcs_pat_", "rcs_pat_000000000000_", "rcs_pat_zzzzzzzzzzzz_00", "rcs_pat_" + String(repeating: "a", count: 500)] {
            let refused = try asToken(token, "GET", "/v1/projects/demo/remoteConfig")
            #expect(refused.status == 403, "\(token): \(refused.text)")
        }
    }
}
