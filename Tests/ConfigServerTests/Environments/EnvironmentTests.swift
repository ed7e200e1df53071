import Foundation
import Testing

/// A project's environments end to end (docs/environments.md): made, listed in order, each with
/// templates, versions and keys of its own; a client's key chooses what it is served, and the
/// Firebase paths stay production's.
@Suite(.timeLimit(.minutes(1))) struct EnvironmentTests {
    let server: TestServer

    init() throws {
        server = try TestServer()
    }

    /// The value of `key` in the client template a fetch with `apiKey` is served.
    func fetched(_ key: String, apiKey: String = TestServer.apiKey) throws -> String? {
        let response = try server.request("POST", "/v1/projects/424242/namespaces/firebase:fetch", headers: [("X-Goog-Api-Key", apiKey)],
                                          body: #"{"appInstanceId":"i-1","appId":"1:424242:android:ab"}"#)
        #expect(response.status == 200, "\(response.text)")
        return (try response.json()["entries"] as? [String: String])?[key]
    }

    /// A new client key of the demo project serving `environment`.
    func key(for environment: String) throws -> String {
        let made = try server.admin("POST", "/v1/projects/demo/apiKeys", body: #"{"name":"app","environment":"\#(environment)"}"#)
        #expect(made.status == 200, "\(made.text)")
        #expect(try made.json()["environment"] as? String == environment)
        return try #require(try made.json()["key"] as? String)
    }

    @Test func environmentsAreListedInOrderWithProductionLast() throws {
        #expect(try server.admin("GET", "/v1/projects/demo/environments").json()["environments"] as? [[String: Any]] != nil)
        for id in ["development", "staging"] {
            #expect(try server.admin("POST", "/v1/projects/demo/environments", body: #"{"id":"\#(id)"}"#).status == 200)
        }
        let list = try #require(try server.admin("GET", "/v1/projects/demo/environments").json()["environments"] as? [[String: Any]])
        #expect(list.map { $0["id"] as? String } == ["development", "staging", "production"])
        #expect(list.map { $0["displayName"] as? String } == ["Development", "Staging", "Production"])
        let again = try server.admin("POST", "/v1/projects/demo/environments", body: #"{"id":"staging"}"#)
        #expect(again.status == 409 && again.text.contains("ALREADY_EXISTS"))
        for body in [#"{"id":"Staging"}"#, #"{"id":"production"}"#, #"{"id":"qa","colour":"red"}"#, #"{}"#] {
            #expect(try server.admin("POST", "/v1/projects/demo/environments", body: body).status == 400, "\(body)")
        }
        let renamed = try server.admin("PATCH", "/v1/projects/demo/environments/staging", body: #"{"displayName":"Pre-production","soakSeconds":3600}"#)
        #expect(renamed.status == 200, "\(renamed.text)")
        #expect(try renamed.json()["soakSeconds"] as? Int == 3600)
        #expect(try server.admin("PATCH", "/v1/projects/demo/environments/qa", body: #"{"displayName":"QA"}"#).status == 404)
        #expect(try server.admin("PATCH", "/v1/projects/demo/environments/staging", body: #"{"soakSeconds":-1}"#).status == 400)
    }

    @Test func eachEnvironmentHasItsOwnTemplateVersionsAndKeys() throws {
        try server.publish(Templates.single("prod"))
        #expect(try server.admin("POST", "/v1/projects/demo/environments", body: #"{"id":"staging"}"#).status == 200)
        let staging = "/v1/projects/demo/environments/staging/remoteConfig"
        let empty = try server.admin("GET", staging)
        #expect(empty.status == 200 && empty.header("ETag") == "etag-424242-0", "an environment's template starts empty")
        #expect(try server.admin("PUT", staging, headers: [("If-Match", "etag-424242-0")], body: Templates.single("stage 1")).status == 200)
        let second = try server.admin("PUT", staging, headers: [("If-Match", "etag-424242-1")], body: Templates.single("stage 2"))
        #expect(second.status == 200 && second.header("ETag") == "etag-424242-2", "gap-free versions of its own")
        #expect(try server.admin("PUT", staging, headers: [("If-Match", "etag-424242-1")], body: Templates.single("late")).status == 400)
        let versions = try server.admin("GET", staging + ":listVersions").json()["versions"] as? [[String: Any]]
        #expect(versions?.map { $0["versionNumber"] as? String } == ["2", "1"])
        #expect(try server.admin("GET", "/v1/projects/demo/remoteConfig").header("ETag") == "etag-424242-1", "production is untouched")
        #expect(try server.admin("GET", "/v1/projects/demo/environments/production/remoteConfig").header("ETag") == "etag-424242-1",
                "production under its environment path is the same template")

        let audit = try #require(try server.admin("GET", "/v1/auditLog?project=demo").json()["entries"] as? [[String: Any]])
        let publishes = audit.filter { $0["action"] as? String == "template.publish" && $0["outcome"] as? String == "ok" }
            .map { "\($0["environment"] as? String ?? "-") \($0["namespace"] as? String ?? "-") \($0["versionNumber"] as? String ?? "-")" }
        #expect(publishes == ["staging firebase 2", "staging firebase 1", "production firebase 1"], "the audit log names the environment")
        let proposal = try server.admin("POST", "/v1/projects/demo/environments/staging/namespaces/firebase/changeRequests",
                                        headers: [("If-Match", "etag-424242-2")], body: #"{"template":\#(Templates.single("proposed"))}"#)
        #expect(proposal.status == 200, "\(proposal.text)")
        #expect(try proposal.json()["environment"] as? String == "staging")
        let production = try server.admin("GET", "/v1/projects/demo/namespaces/firebase/changeRequests").json()
        #expect((production["changeRequests"] as? [Any] ?? []).isEmpty, "production has no change request")

        let stagingKey = try key(for: "staging")
        #expect(try fetched("key", apiKey: stagingKey) == "stage 2")
        #expect(try fetched("key") == "prod", "the config file's key serves production")
        #expect(try server.admin("POST", staging + ":rollback", body: #"{"versionNumber":"1"}"#).status == 200)
        #expect(try fetched("key", apiKey: stagingKey) == "stage 1")

        let badKey = try server.admin("POST", "/v1/projects/demo/apiKeys", body: #"{"name":"app","environment":"qa"}"#)
        #expect(badKey.status == 400 && badKey.text.contains("no environment 'qa'"))
        #expect(try server.admin("GET", "/v1/projects/demo/environments/qa/remoteConfig").status == 404)
        let inUse = try server.admin("DELETE", "/v1/projects/demo/environments/staging")
        #expect(inUse.status == 400 && inUse.text.contains("ENVIRONMENT_IN_USE"), "\(inUse.text)")
        #expect(try server.admin("DELETE", "/v1/projects/demo/environments/production").status == 400)
    }

    @Test func anEmptyEnvironmentIsDeletedOnceItsKeysAre() throws {
        #expect(try server.admin("POST", "/v1/projects/demo/environments", body: #"{"id":"sandbox"}"#).status == 200)
        _ = try key(for: "sandbox")
        #expect(try server.admin("DELETE", "/v1/projects/demo/environments/sandbox").text.contains("API key"))
        let keys = try #require(try server.admin("GET", "/v1/projects/demo/apiKeys").json()["apiKeys"] as? [[String: Any]])
        let id = try #require(keys.first { $0["environment"] as? String == "sandbox" }?["id"] as? String)
        #expect(try server.admin("DELETE", "/v1/projects/demo/apiKeys/\(id)").status == 204)
        #expect(try server.admin("DELETE", "/v1/projects/demo/environments/sandbox").status == 204)
        #expect(try server.admin("GET", "/v1/projects/demo/environments/sandbox/remoteConfig").status == 404)
    }

    @Test func anEnvironmentHasItsOwnCanaryAndChangePolicy() throws {
        try server.publish(Templates.single("prod"))
        #expect(try server.admin("POST", "/v1/projects/demo/environments", body: #"{"id":"staging"}"#).status == 200)
        let staging = "/v1/projects/demo/environments/staging/remoteConfig"
        #expect(try server.admin("PUT", staging, headers: [("If-Match", "*")], body: Templates.single("stable")).status == 200)
        let canary = try server.admin("PUT", staging + "?canaryPercent=100", headers: [("If-Match", "etag-424242-1")],
                                      body: Templates.single("canary"))
        #expect(canary.status == 200, "\(canary.text)")
        #expect(try server.admin("GET", staging + ":canary").json()["canaryVersion"] as? String == "2")
        #expect(try server.admin("GET", "/v1/projects/demo/remoteConfig:canary").status == 404, "production runs none")
        let policy = "/v1/projects/demo/environments/staging/namespaces/firebase/changePolicy"
        #expect(try server.admin("PUT", policy, body: #"{"requiredApprovals":1}"#).status == 200)
        #expect(try server.admin("GET", "/v1/projects/demo/namespaces/firebase/changePolicy").json()["requiredApprovals"] as? Int == 0)
        let refused = try server.admin("PUT", staging, headers: [("If-Match", "*")], body: Templates.single("direct"))
        #expect(refused.status == 403 && refused.text.contains("environments/staging/namespaces/firebase/changeRequests"), "\(refused.text)")
        #expect(try server.admin("PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "*")], body: Templates.single("p2")).status == 200)
    }

    @Test func anOpenFeatureProviderWithAnEnvironmentsKeyIsServedItsFlags() throws {
        try server.publish(Templates.single("prod"))
        #expect(try server.admin("POST", "/v1/projects/demo/environments", body: #"{"id":"staging"}"#).status == 200)
        #expect(try server.admin("PUT", "/v1/projects/demo/environments/staging/remoteConfig", headers: [("If-Match", "*")],
                                 body: Templates.single("stage")).status == 200)
        let stagingKey = try key(for: "staging")
        for (apiKey, expected) in [(stagingKey, "stage"), (TestServer.apiKey, "prod")] {
            let answer = try server.request("POST", "/ofrep/v1/evaluate/flags/key", headers: [("X-API-Key", apiKey)],
                                            body: #"{"context":{"targetingKey":"user-1"}}"#)
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try answer.json()["value"] as? String == expected)
        }
    }
}
