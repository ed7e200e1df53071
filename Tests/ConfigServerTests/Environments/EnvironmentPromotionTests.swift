import ConfigCore
@testable import ServerCore
import Foundation
import Testing

/// Compare and promote between environments (docs/environments.md): the promoted template is
/// the source's chosen parts exactly, the new version says where it came from, the target's
/// approvals and soak rule hold, and a promotion is made once.
@Suite(.timeLimit(.minutes(1))) struct EnvironmentPromotionTests {
    let server: TestServer
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))

    static let staging = """
        {"conditions":[{"name":"ios","expression":"device.os == 'ios'"},{"name":"beta","expression":"app.customSignal['beta'] == 'yes'"}],
         "parameters":{"banner":{"defaultValue":{"value":"new"},"conditionalValues":{"beta":{"value":"beta banner"}}},
                       "limit":{"defaultValue":{"value":"20"},"valueType":"NUMBER"}}}
        """
    static let production = """
        {"conditions":[{"name":"ios","expression":"device.os == 'ios'"}],
         "parameters":{"banner":{"defaultValue":{"value":"old"}},"limit":{"defaultValue":{"value":"10"},"valueType":"NUMBER"},
                       "legacy":{"defaultValue":{"value":"x"}}}}
        """

    init() throws {
        server = try TestServer(clock: clock) {
            $0.adminTokens.append(AdminTokenDeclaration(name: "editor", token: "editor-token", roles: ["demo": "editor"]))
            $0.adminTokens.append(AdminTokenDeclaration(name: "publisher", token: "publisher-token", roles: ["demo": "publisher"]))
        }
        #expect(try server.admin("POST", "/v1/projects/demo/environments", body: #"{"id":"staging"}"#).status == 200)
        try server.publish(Self.production)
        #expect(try server.admin("PUT", "/v1/projects/demo/environments/staging/remoteConfig", headers: [("If-Match", "*")],
                                 body: Self.staging).status == 200)
    }

    func promote(_ body: String, token: String = TestServer.adminToken, ifMatch: String? = nil) throws -> TestResponse {
        try server.request("POST", "/v1/projects/demo/environments/production/remoteConfig:promoteFrom",
                           headers: [("Authorization", "Bearer \(token)")] + (ifMatch.map { [("If-Match", $0)] } ?? []), body: body)
    }

    /// A template's JSON without its version block, as stored.
    func content(_ path: String) throws -> [String: Any] {
        var template = try server.admin("GET", path).json()
        template["version"] = nil
        return template
    }

    @Test func aWholeTemplateIsPromotedExactlyAndSaysWhereItCameFrom() throws {
        let before = try server.admin("GET", "/v1/projects/demo/environments/staging/remoteConfig:compare?with=production").json()
        let differences = try #require(before["diff"] as? [String: Any])
        #expect(differences["removedParameters"] as? [String] == ["legacy"] && differences["addedConditions"] as? [String] == ["beta"])
        let promoted = try promote(#"{"from":"staging"}"#)
        #expect(promoted.status == 200, "\(promoted.text)")
        #expect(promoted.header("ETag") == "etag-424242-2")
        #expect(try promoted.json()["promotedFrom"] as? String == "staging/1")
        let production = try content("/v1/projects/demo/remoteConfig"), staging = try content("/v1/projects/demo/environments/staging/remoteConfig")
        #expect(NSDictionary(dictionary: production).isEqual(to: staging), "the same template")
        let versions = try #require(try server.admin("GET", "/v1/projects/demo/remoteConfig:listVersions").json()["versions"] as? [[String: Any]])
        #expect(versions[0]["promotedFrom"] as? [String: String] == ["environment": "staging", "versionNumber": "1"])
        #expect(versions[0]["description"] as? String == "Promoted from staging version 1")
        let compared = try server.admin("GET", "/v1/projects/demo/environments/staging/remoteConfig:compare?with=production").json()
        #expect(compared["from"] as? String == "2" && compared["to"] as? String == "1")
        let diff = try #require(compared["diff"] as? [String: Any])
        #expect(diff.values.allSatisfy { ($0 as? [Any])?.isEmpty ?? true }, "nothing differs: \(diff)")
        let audit = try #require(try server.admin("GET", "/v1/auditLog?project=demo").json()["entries"] as? [[String: Any]])
        let entry = try #require(audit.first { $0["action"] as? String == "environment.promote" })
        #expect(entry["target"] as? String == "staging/1" && entry["versionNumber"] as? String == "2")
        #expect(entry["environment"] as? String == "production")
    }

    @Test func chosenParametersComeWithTheConditionsTheyUse() throws {
        let promoted = try promote(#"{"from":"staging","parameters":["banner"],"description":"new banner"}"#)
        #expect(promoted.status == 200, "\(promoted.text)")
        let template = try content("/v1/projects/demo/remoteConfig")
        let parameters = try #require(template["parameters"] as? [String: [String: Any]])
        let staging = try #require(try content("/v1/projects/demo/environments/staging/remoteConfig")["parameters"] as? [String: [String: Any]])
        #expect(NSDictionary(dictionary: parameters["banner"] ?? [:]).isEqual(to: staging["banner"] ?? [:]))
        #expect((parameters["limit"]?["defaultValue"] as? [String: String])?["value"] == "10", "limit was not chosen")
        #expect(parameters["legacy"] != nil)
        #expect((template["conditions"] as? [[String: Any]])?.map { $0["name"] as? String } == ["ios", "beta"])
        let refused = try promote(#"{"from":"staging","conditions":["android"]}"#)
        #expect(refused.status == 400 && refused.text.contains("no condition 'android'"), "\(refused.text)")
    }

    @Test func aPromotionIsMadeOnceAndOnlyByAPublisher() throws {
        #expect(try promote(#"{"from":"staging"}"#, ifMatch: "etag-424242-1").status == 200)
        let again = try promote(#"{"from":"staging"}"#, ifMatch: "etag-424242-1")
        #expect(again.status == 400 && again.text.contains("VERSION_MISMATCH"), "a repeated promotion of the same base is refused")
        let editor = try promote(#"{"from":"staging"}"#, token: "editor-token")
        #expect(editor.status == 403 && editor.text.contains("publisher"), "\(editor.text)")
        for body in [#"{"from":"production"}"#, #"{"from":"qa"}"#, #"{}"#, #"{"from":"staging","parameters":[]}"#, #"{"from":"staging","to":"x"}"#] {
            #expect(try promote(body).status == 400, "\(body)")
        }
        #expect(try promote(#"{"from":"staging","version":9}"#).status == 404)
    }

    @Test func whereApprovalsAreNeededAPromotionIsAChangeRequest() throws {
        #expect(try server.admin("PUT", "/v1/projects/demo/namespaces/firebase/changePolicy", body: #"{"requiredApprovals":1}"#).status == 200)
        let proposed = try promote(#"{"from":"staging"}"#, token: "editor-token")
        #expect(proposed.status == 200, "\(proposed.text)")
        let request = try #require(try proposed.json()["changeRequest"] as? [String: Any])
        #expect(request["promotedFrom"] as? [String: String] == ["environment": "staging", "versionNumber": "1"])
        let id = try #require(request["id"] as? String)
        let requests = "/v1/projects/demo/namespaces/firebase/changeRequests/\(id)"
        let publisher = [("Authorization", "Bearer publisher-token")]
        #expect(try server.request("POST", requests + ":approve", headers: publisher, body: "{}").status == 200)
        #expect(try server.request("POST", requests + ":apply", headers: publisher, body: "{}").status == 200)
        let versions = try #require(try server.admin("GET", "/v1/projects/demo/remoteConfig:listVersions").json()["versions"] as? [[String: Any]])
        #expect(versions[0]["promotedFrom"] as? [String: String] == ["environment": "staging", "versionNumber": "1"])
    }

    @Test func aSoakRuleTakesOnlyVersionsActiveLongEnough() throws {
        #expect(try server.admin("PATCH", "/v1/projects/demo/environments/production", body: #"{"soakSeconds":3600}"#).status == 200)
        let early = try promote(#"{"from":"staging"}"#)
        #expect(early.status == 400 && early.text.contains("SOAK_NOT_MET"), "\(early.text)")
        clock.advance(by: 3_600)
        #expect(try promote(#"{"from":"staging"}"#).status == 200)
    }
}
