import ConfigServer
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) final class AdminAPITests {
    let server: TestServer

    init() throws { server = try TestServer() }

    @Test func healthAndReadiness() throws {
        #expect(try server.request("GET", "/healthz").status == 200)
        #expect(try server.request("GET", "/readyz").text == "{\"status\":\"ready\"}")
    }

    @Test func metricsCountRequestsWithTheirLatencyUnderAFixedSetOfRouteNames() throws {
        #expect(try server.request("GET", "/healthz").status == 200)
        #expect(try server.admin("GET", "/v1/projects/demo/remoteConfig:no%22such%0Amethod").status == 404)
        let text = try server.admin("GET", "/metrics").text
        #expect(text.contains("rcs_http_requests_total{worker=\"0\",route=\"healthz\",status=\"200\"} 1\n"))
        #expect(text.contains("rcs_http_request_duration_seconds_count{worker=\"0\",route=\"healthz\"} 1\n"))
        #expect(text.contains("rcs_http_request_duration_seconds_bucket{worker=\"0\",route=\"healthz\",le=\"+Inf\"} 1\n"))
        // A client-chosen method name never becomes a label (nor breaks the text format).
        #expect(text.contains("rcs_http_requests_total{worker=\"0\",route=\"remoteConfig:unknown\",status=\"404\"} 1\n"))
        #expect(!text.contains("such"))
        #expect(text.contains("\nrcs_workers_reporting 1\n"))
    }

    @Test func adminNeedsAToken() throws {
        let missing = try server.request("GET", "/v1/projects/demo/remoteConfig")
        #expect(missing.status == 401)
        #expect(missing.errorStatus == "UNAUTHENTICATED")
        let wrong = try server.request("GET", "/v1/projects/demo/remoteConfig", headers: [("Authorization", "Bearer \(TestServer.apiKey)")])
        #expect(wrong.status == 403)
        #expect(wrong.errorStatus == "PERMISSION_DENIED")
    }

    @Test func emptyTemplateBeforeTheFirstPublish() throws {
        let response = try server.admin("GET", "/v1/projects/424242/remoteConfig")
        #expect(response.status == 200)
        #expect(response.header("ETag") == "etag-424242-0")
        #expect(response.text == "{\"conditions\":[],\"parameterGroups\":{},\"parameters\":{}}")
    }

    @Test func publishNeedsIfMatchAndDetectsLostUpdates() throws {
        let missing = try server.admin("PUT", "/v1/projects/demo/remoteConfig", body: Templates.basic)
        #expect(missing.status == 400)
        let first = try server.admin("PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "etag-424242-0")], body: Templates.basic)
        #expect(first.status == 200)
        #expect(first.header("ETag") == "etag-424242-1")
        let version = try #require(try first.json()["version"] as? [String: Any])
        #expect(version["versionNumber"] as? String == "1")
        #expect(version["updateType"] as? String == "INCREMENTAL_UPDATE")
        #expect(version["description"] as? String == "first")
        #expect((version["updateUser"] as? [String: Any])?["email"] as? String == "tester@example.com")
        let stale = try server.admin("PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "etag-424242-0")], body: Templates.basic)
        #expect(stale.status == 400)
        #expect(stale.errorStatus == "FAILED_PRECONDITION")
        #expect(stale.text.contains("[VERSION_MISMATCH]: Expected version 0, found 1 for project: 424242"))
        let forced = try server.admin("PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "*")], body: Templates.basic)
        #expect(forced.header("ETag") == "etag-424242-2")
        #expect(((try forced.json()["version"]) as? [String: Any])?["updateType"] as? String == "FORCED_UPDATE")
    }

    @Test func validateOnlyStoresNothing() throws {
        let response = try server.admin("PUT", "/v1/projects/demo/remoteConfig?validate_only=true", headers: [("If-Match", "*")], body: Templates.basic)
        #expect(response.status == 200)
        #expect(response.header("ETag") == "etag-424242-0")
        #expect(try server.admin("GET", "/v1/projects/demo/remoteConfig").header("ETag") == "etag-424242-0")
        // The camelCase spelling, and an ETag that is not one fails the validation.
        let camel = try server.admin("PUT", "/v1/projects/demo/remoteConfig?validateOnly=true", headers: [("If-Match", "*")], body: Templates.basic)
        #expect(camel.status == 200 && camel.header("ETag") == "etag-424242-0")
        for ifMatch in ["not-an-etag", "etag-999-1"] {
            let bad = try server.admin("PUT", "/v1/projects/demo/remoteConfig?validateOnly=true", headers: [("If-Match", ifMatch)], body: Templates.basic)
            #expect(bad.status == 400, "\(ifMatch)")
        }
        #expect(try server.admin("GET", "/v1/projects/demo/remoteConfig").header("ETag") == "etag-424242-0")
    }

    @Test func invalidTemplatesAreRejectedWithTheirPath() throws {
        let unknownCondition = """
        {"parameters":{"welcome":{"defaultValue":{"value":"a"},"conditionalValues":{"nope":{"value":"b"}}}}}
        """
        let response = try server.admin("PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "*")], body: unknownCondition)
        #expect(response.status == 400)
        #expect(response.errorStatus == "INVALID_ARGUMENT")
        #expect(response.text.contains("parameters.welcome.conditionalValues.nope"))
        // Each issue by path, as Google's BadRequest details, for tools that should not parse the message.
        let error = try #require(try response.json()["error"] as? [String: Any])
        let details = try #require(error["details"] as? [[String: Any]])
        #expect(details.first?["@type"] as? String == "type.googleapis.com/google.rpc.BadRequest")
        let violations = try #require(details.first?["fieldViolations"] as? [[String: String]])
        #expect(violations == [["field": "parameters.welcome.conditionalValues.nope", "description": "unknown condition 'nope'; conditional values must name a condition of the template"]])
        let badExpression = "{\"conditions\":[{\"name\":\"c\",\"expression\":\"device.os == \"}]}"
        #expect(try server.admin("PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "*")], body: badExpression).status == 400)
        #expect(try server.admin("PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "*")], body: "{not json").status == 400)
        #expect(try server.admin("GET", "/v1/projects/demo/remoteConfig").header("ETag") == "etag-424242-0")
    }

    @Test func versionsCanBeListedReadAndRolledBack() throws {
        for value in ["a", "b", "c"] { try server.publish(Templates.single(value)) }
        let list = try server.admin("GET", "/v1/projects/demo/remoteConfig:listVersions?pageSize=2")
        let versions = try #require(try list.json()["versions"] as? [[String: Any]])
        #expect(versions.map { $0["versionNumber"] as? String } == ["3", "2"])
        let token = try #require(try list.json()["nextPageToken"] as? String)
        let next = try server.admin("GET", "/v1/projects/demo/remoteConfig:listVersions?pageSize=2&pageToken=\(token)")
        #expect((try next.json()["versions"] as? [[String: Any]])?.map { $0["versionNumber"] as? String } == ["1"])

        let old = try server.admin("GET", "/v1/projects/demo/remoteConfig?versionNumber=1")
        #expect(old.text.contains("\"a\""))
        #expect(old.header("ETag") == "etag-424242-1")
        #expect(try server.admin("GET", "/v1/projects/demo/remoteConfig?versionNumber=99").status == 404)

        let rollback = try server.admin("POST", "/v1/projects/demo/remoteConfig:rollback", body: "{\"versionNumber\": \"1\"}")
        #expect(rollback.status == 200)
        let version = try #require(try rollback.json()["version"] as? [String: Any])
        #expect(version["versionNumber"] as? String == "4")
        #expect(version["updateType"] as? String == "ROLLBACK")
        #expect(version["rollbackSource"] as? String == "1")
        #expect(try server.admin("POST", "/v1/projects/demo/remoteConfig:rollback?versionNumber=77").status == 404)

        let diff = try server.admin("GET", "/v1/projects/demo/remoteConfig:diff?from=2&to=3")
        #expect(diff.status == 200)
        #expect(diff.text.contains("\"changedParameters\""))

        // What a reviewer approves: an added parameter with its values, a removed one with what it held.
        try server.publish(#"{"parameters":{"promo":{"defaultValue":{"value":"10%"},"conditionalValues":{},"valueType":"STRING"}}}"#)
        let content = try server.admin("GET", "/v1/projects/demo/remoteConfig:diff?from=4&to=5")
        let body = try #require(try content.json()["diff"] as? [String: Any])
        func json(_ object: Any?) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: try #require(object), options: [.sortedKeys]), as: UTF8.self)
        }
        #expect(try json(body["added"]) == #"{"conditions":[],"groups":[],"parameters":[{"defaultValue":{"value":"10%"},"key":"promo","valueType":"STRING"}]}"#)
        #expect(try json(body["removed"]) == #"{"conditions":[],"groups":[],"parameters":[{"defaultValue":{"value":"a"},"key":"key","valueType":"STRING"}]}"#)
    }

    @Test func aDraftIsDiffedAgainstTheActiveOrANamedVersion() throws {
        let empty = try server.admin("POST", "/v1/projects/demo/remoteConfig:diff", body: Templates.single("a"))
        #expect(empty.status == 200)
        #expect(try empty.json()["from"] as? String == "0")
        #expect((try empty.json()["diff"] as? [String: Any])?["addedParameters"] as? [String] == ["key"])
        try server.publish(Templates.single("a"))
        try server.publish(Templates.single("b"))
        let draft = #"{"parameters":{"key":{"defaultValue":{"value":"c"}},"extra":{"defaultValue":{"value":"x"}}}}"#
        let active = try server.admin("POST", "/v1/projects/demo/remoteConfig:diff", body: draft)
        #expect(try active.json()["from"] as? String == "2")
        let diff = try #require(try active.json()["diff"] as? [String: Any])
        #expect(diff["addedParameters"] as? [String] == ["extra"])
        let changed = try #require((diff["changedParameters"] as? [[String: Any]])?.first)
        #expect((changed["defaultValue"] as? [String: Any])?["from"] as? [String: String] == ["value": "b"])
        let named = try server.admin("POST", "/v1/projects/demo/remoteConfig:diff?from=1", body: draft)
        #expect(try named.json()["from"] as? String == "1")
        let fromNothing = try server.admin("POST", "/v1/projects/demo/remoteConfig:diff?from=0", body: draft)
        #expect((try fromNothing.json()["diff"] as? [String: Any])?["addedParameters"] as? [String] == ["extra", "key"])
        // Nothing was published by diffing.
        #expect(try server.admin("GET", "/v1/projects/demo/remoteConfig").header("ETag") == "etag-424242-2")
        #expect(try server.admin("POST", "/v1/projects/demo/remoteConfig:diff?from=9", body: draft).status == 404)
        let invalid = try server.admin("POST", "/v1/projects/demo/remoteConfig:diff", body: #"{"parameters":{"key":{"defaultValue":7}}}"#)
        #expect(invalid.status == 400)
        #expect(invalid.text.contains("fieldViolations"))
        #expect(try server.admin("POST", "/v1/projects/demo/remoteConfig:diff", body: "").status == 400)
    }

    @Test func aCheckListsTheProblemsAPublishWouldBeRefusedForAndStoresNothing() throws {
        let valid = try server.admin("POST", "/v1/projects/demo/remoteConfig:check", body: Templates.single("a"))
        #expect(valid.status == 200)
        #expect(valid.text == #"{"issues":[]}"#)
        let number = #"{"parameters":{"n":{"defaultValue":{"value":"12abc"},"valueType":"NUMBER"}}}"#
        let notANumber = try server.admin("POST", "/v1/projects/demo/remoteConfig:check", body: number)
        #expect(notANumber.status == 200)
        let issues = try #require(try notANumber.json()["issues"] as? [[String: String]])
        #expect(issues.map { $0["path"] } == ["parameters.n.defaultValue.value"])
        #expect(issues.first?["message"]?.contains("NUMBER") == true)
        let rule = #"{"conditions":[{"name":"rule","expression":"device.os == "}]}"#
        let badRule = try #require(try server.admin("POST", "/v1/projects/demo/remoteConfig:check", body: rule).json()["issues"] as? [[String: String]])
        #expect(badRule.map { $0["path"] } == ["conditions[0].expression"])
        // The same problems a publish is refused for.
        let refused = try server.admin("PUT", "/v1/projects/demo/remoteConfig", headers: [("If-Match", "*")], body: number)
        #expect(refused.status == 400 && refused.text.contains(issues[0]["message"]!))
        #expect(try server.admin("POST", "/v1/projects/demo/remoteConfig:check", body: "").status == 400)
        #expect(try server.admin("GET", "/v1/projects/demo/remoteConfig").header("ETag") == "etag-424242-0")
    }

    @Test func unknownProjectsAndRoutesAre404AndWrongMethods405() throws {
        let project = try server.admin("GET", "/v1/projects/nope/remoteConfig")
        #expect(project.status == 404)
        #expect(project.errorStatus == "NOT_FOUND")
        #expect(try server.admin("GET", "/v2/nothing").status == 404)
        let method = try server.admin("DELETE", "/v1/projects/demo/remoteConfig")
        #expect(method.status == 405)
        #expect(method.header("Allow") == "GET, PUT")
    }

    @Test func evaluateExplainsTheDecision() throws {
        try server.publish(Templates.basic)
        let response = try server.admin("POST", "/v1/projects/demo/remoteConfig:evaluate",
                                        body: "{\"appInstanceId\":\"i\",\"appId\":\"1:424242:ios:ab\"}")
        #expect(response.status == 200)
        let entries = try #require(try response.json()["entries"] as? [String: String])
        #expect(entries == ["welcome": "hi ios", "limit": "10"])
        #expect(response.text.contains("\"condition\":\"ios\""))
        // The same evaluation as OFREP answers it (docs/openfeature.md).
        let openFeature = try #require(try response.json()["openFeature"] as? [String: Any])
        let flags = try #require(openFeature["flags"] as? [[String: Any]])
        #expect(flags.first { $0["key"] as? String == "welcome" }?["variant"] as? String == "ios")
        #expect(flags.first { $0["key"] as? String == "limit" }?["value"] as? Int == 10)
        #expect((openFeature["metadata"] as? [String: Any])?["version"] as? String == "1")
    }

    @Test func projectsAndKeysCanBeCreated() throws {
        let created = try server.admin("POST", "/v1/projects", body: "{\"projectId\":\"second\",\"projectNumber\":\"777\"}")
        #expect(created.status == 200)
        let key = try #require(try server.admin("POST", "/v1/projects/777/apiKeys", body: "{\"name\":\"web\"}").json()["key"] as? String)
        try server.publish(Templates.single("x"), project: "second")
        let fetch = try server.request("POST", "/v1/projects/second/namespaces/firebase:fetch", headers: [("X-Goog-Api-Key", key)],
                                       body: "{\"appInstanceId\":\"i\",\"appId\":\"1:777:web:ab\"}")
        #expect(fetch.status == 200)
        #expect(fetch.text.contains("\"key\":\"x\""))
    }
}
