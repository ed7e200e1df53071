@testable import ServerCore
import Foundation
import Testing

/// OFREP evaluation (docs/openfeature.md): the mapping from a Firebase template, caching per
/// evaluated answer, and every error in the protocol's shape.
@Suite(.timeLimit(.minutes(1))) final class OFREPTests {
    let server: TestServer

    /// Every value type, a named condition, a percent condition, a rollout and an in-app default.
    static let template = """
    {"conditions":[{"name":"canada","expression":"device.country in ['CA']"},
                   {"name":"pro","expression":"app.customSignal['plan'] == 'pro'"},
                   {"name":"everyone_by_percent","expression":"percent <= 100"}],
     "parameters":{
       "dark_mode":{"defaultValue":{"value":"false"},"conditionalValues":{"canada":{"value":"true"}},"valueType":"BOOLEAN"},
       "greeting":{"defaultValue":{"value":"hello"},"conditionalValues":{"pro":{"value":"hello pro"}},"valueType":"STRING"},
       "max_items":{"defaultValue":{"value":"10"},"valueType":"NUMBER"},
       "ratio":{"defaultValue":{"value":"0.25"},"valueType":"NUMBER"},
       "layout":{"defaultValue":{"value":"{\\"columns\\":2}"},"valueType":"JSON"},
       "tags":{"defaultValue":{"value":"[1,2]"},"valueType":"JSON"},
       "beta":{"defaultValue":{"value":"off"},"conditionalValues":{"everyone_by_percent":{"value":"on"}},"valueType":"STRING"},
       "local_only":{"defaultValue":{"useInAppDefault":true},"valueType":"STRING"}}}
    """

    init() throws {
        server = try TestServer { $0.http.maxBodyBytes = 4096 }
    }

    func evaluate(_ flag: String? = nil, body: String, headers: [(String, String)] = [("X-API-Key", TestServer.apiKey)])
        throws -> TestResponse {
        try server.request("POST", "/ofrep/v1/evaluate/flags" + (flag.map { "/\($0)" } ?? ""), headers: headers, body: body)
    }

    static func context(_ attributes: String) -> String { "{\"context\":{\(attributes)}}" }

    /// The bulk answer's flags by key.
    func flags(_ response: TestResponse) throws -> [String: [String: Any]] {
        let items = try #require(try response.json()["flags"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: items.map { ($0["key"] as? String ?? "", $0) })
    }

    @Test func theBulkAnswerMapsEveryTypeAndReason() throws {
        let version = try server.publish(Self.template)
        let response = try evaluate(body: Self.context("\"targetingKey\":\"user-1\",\"country\":\"CA\",\"plan\":\"pro\""))
        #expect(response.status == 200)
        #expect(response.text.contains("{\"key\":\"max_items\",\"value\":10,"), "an integral NUMBER is a JSON integer")
        #expect(response.text.contains("{\"key\":\"ratio\",\"value\":0.25,"))
        let flags = try flags(response)
        #expect(flags["dark_mode"]?["value"] as? Bool == true)
        #expect(flags["dark_mode"]?["reason"] as? String == "TARGETING_MATCH")
        #expect(flags["dark_mode"]?["variant"] as? String == "canada")
        #expect(flags["greeting"]?["value"] as? String == "hello pro", "a custom signal from a context attribute")
        #expect((flags["layout"]?["value"] as? [String: Any])?["columns"] as? Int == 2)
        #expect((flags["tags"]?["value"] as? [String: Any])?["value"] as? [Int] == [1, 2], "a JSON array is wrapped")
        #expect(flags["beta"]?["reason"] as? String == "SPLIT")
        #expect(flags["beta"]?["variant"] as? String == "everyone_by_percent")
        #expect(flags["max_items"]?["reason"] as? String == "STATIC")
        #expect(flags["max_items"]?["variant"] as? String == "default")
        let local = try #require(flags["local_only"])
        #expect(local["value"] == nil && local["reason"] as? String == "STATIC", "useInAppDefault: the code default")
        let json = try response.json()
        #expect((json["metadata"] as? [String: Any])?["version"] as? String == "\(version)")
        let streams = try #require(json["eventStreams"] as? [[String: Any]])
        #expect(streams.first?["type"] as? String == "sse")
        let uri = try #require((streams.first?["endpoint"] as? [String: Any])?["requestUri"] as? String)
        #expect(uri == "/ofrep/v1/sse?key=\(TestServer.apiKey)&targetingKey=user-1&version=\(version)")
    }

    @Test func oneFlagAndAMissingOne() throws {
        try server.publish(Self.template)
        let body = Self.context("\"targetingKey\":\"user-1\"")
        let flag = try evaluate("dark_mode", body: body, headers: [("Authorization", "Bearer \(TestServer.apiKey)")])
        #expect(flag.status == 200)
        #expect(flag.text == "{\"key\":\"dark_mode\",\"value\":false,\"reason\":\"STATIC\",\"variant\":\"default\"}")
        let missing = try evaluate("nope", body: body)
        #expect(missing.status == 404)
        #expect(missing.text == "{\"key\":\"nope\",\"errorCode\":\"FLAG_NOT_FOUND\",\"errorDetails\":\"Flag 'nope' was not found.\"}")
    }

    @Test func theETagStandsForTheAnswerOfThatContext() throws {
        try server.publish(Self.template)
        let canadian = try evaluate(body: Self.context("\"targetingKey\":\"a\",\"country\":\"CA\""))
        let french = try evaluate(body: Self.context("\"targetingKey\":\"a\",\"country\":\"FR\""))
        let tag = try #require(canadian.header("ETag"))
        #expect(tag.hasPrefix("\"") && tag != french.header("ETag"), "two contexts on one version")
        let again = try evaluate(body: Self.context("\"targetingKey\":\"b\",\"country\":\"CA\""),
                                 headers: [("X-API-Key", TestServer.apiKey), ("If-None-Match", tag)])
        #expect(again.status == 304 && again.body.isEmpty, "another client with the same answer")
        #expect(again.header("ETag") == tag)
        try server.publish(Self.template)
        let after = try evaluate(body: Self.context("\"targetingKey\":\"a\",\"country\":\"CA\""),
                                 headers: [("X-API-Key", TestServer.apiKey), ("If-None-Match", tag)])
        #expect(after.status == 200 && after.header("ETag") != tag, "a publish moves the version in the answer")
    }

    @Test(arguments: [
        ("{\"context\"", 400, "{\"errorCode\":\"PARSE_ERROR\",\"errorDetails\":\"Invalid JSON: expected ':' at byte 10.\"}"),
        ("[1]", 400, "{\"errorCode\":\"PARSE_ERROR\",\"errorDetails\":\"The request body must be a JSON object.\"}"),
        ("{}", 400, "{\"errorCode\":\"INVALID_CONTEXT\",\"errorDetails\":\"The request needs a 'context' object.\"}"),
        ("{\"context\":{\"country\":\"CA\"}}", 400,
         "{\"errorCode\":\"TARGETING_KEY_MISSING\",\"errorDetails\":\"The context needs a non-empty targetingKey.\"}"),
        ("{\"context\":{\"targetingKey\":7}}", 400,
         "{\"errorCode\":\"INVALID_CONTEXT\",\"errorDetails\":\"The context's targetingKey must be a string.\"}"),
        ("{\"context\":{\"targetingKey\":\"a\",\"appVersion\":[1]}}", 400,
         "{\"errorCode\":\"INVALID_CONTEXT\",\"errorDetails\":\"The context attribute 'appVersion' must be a string.\"}"),
        // The last `context` counts, and a context is read as strictly as the rest of the body.
        ("{\"context\":{\"targetingKey\":\"a\"},\"context\":7}", 400,
         "{\"errorCode\":\"INVALID_CONTEXT\",\"errorDetails\":\"The request needs a 'context' object.\"}"),
        ("{\"context\":{\"targetingKey\":\"a\"},\"context\":{}}", 400,
         "{\"errorCode\":\"TARGETING_KEY_MISSING\",\"errorDetails\":\"The context needs a non-empty targetingKey.\"}"),
        ("{\"context\":{\"targetingKey\":\"a\" \"country\":\"CA\"}}", 400,
         "{\"errorCode\":\"PARSE_ERROR\",\"errorDetails\":\"Invalid JSON: expected ',' or '}' at byte 31.\"}"),
        ("{\"context\":{\"targetingKey\":\"a\"}} x", 400,
         "{\"errorCode\":\"PARSE_ERROR\",\"errorDetails\":\"Invalid JSON: unexpected text after the JSON value at byte 33.\"}"),
    ])
    func badInputGetsTheSpecsErrorBody(body: String, status: Int, expected: String) throws {
        try server.publish(Self.template)
        let bulk = try evaluate(body: body)
        #expect(bulk.status == status)
        #expect(bulk.text == expected)
        let single = try evaluate("greeting", body: body)
        #expect(single.status == status)
        #expect(single.text == "{\"key\":\"greeting\"," + expected.dropFirst())
    }

    @Test func credentialsMethodsAndSizes() throws {
        let body = Self.context("\"targetingKey\":\"a\"")
        let missing = try evaluate(body: body, headers: [])
        #expect(missing.status == 401)
        #expect(try missing.json()["errorCode"] as? String == "GENERAL")
        let wrong = try evaluate("greeting", body: body, headers: [("X-API-Key", "not-a-key")])
        #expect(wrong.status == 403)
        #expect(try wrong.json()["key"] as? String == "greeting")
        let get = try server.request("GET", "/ofrep/v1/evaluate/flags", headers: [("X-API-Key", TestServer.apiKey)])
        #expect(get.status == 405)
        #expect(try get.json()["errorDetails"] as? String == "Method not allowed here; use POST.")
        // Refused by the HTTP server before any route runs, still in OFREP's shape.
        let large = try evaluate(body: Self.context("\"targetingKey\":\"\(String(repeating: "x", count: 5000))\""))
        #expect(large.status == 413)
        #expect(large.text == "{\"errorCode\":\"GENERAL\",\"errorDetails\":\"The request body is larger than 4096 bytes.\"}")
        let unknown = try server.request("POST", "/ofrep/v1/evaluate/other", headers: [("X-API-Key", TestServer.apiKey)], body: body)
        #expect(unknown.status == 404)
        #expect(unknown.text == "{\"errorCode\":\"GENERAL\",\"errorDetails\":\"No resource at /ofrep/v1/evaluate/other.\"}")
        let preflight = try server.request("OPTIONS", "/ofrep/v1/evaluate/flags")
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("X-API-Key") == true)
    }

    @Test func aProjectWithoutATemplateHasNoFlags() throws {
        let bulk = try evaluate(body: Self.context("\"targetingKey\":\"a\""))
        #expect(bulk.status == 200)
        #expect(bulk.text.hasSuffix("}}],\"flags\":[],\"metadata\":{\"version\":\"0\"}}"))
        #expect(try evaluate("greeting", body: Self.context("\"targetingKey\":\"a\"")).status == 404)
    }
}

/// The fetch throttle and the per-project template choice.
@Suite(.timeLimit(.minutes(1))) struct OFREPSettingsTests {
    @Test func theFetchThrottleCountsEvaluationsPerTargetingKey() throws {
        let server = try TestServer { $0.fetch.throttleBurst = 2; $0.fetch.throttlePerMinute = 1 }
        try server.publish(Templates.single("a"))
        let body = OFREPTests.context("\"targetingKey\":\"busy\"")
        let statuses = try (0..<3).map { _ in
            try server.request("POST", "/ofrep/v1/evaluate/flags", headers: [("X-API-Key", TestServer.apiKey)], body: body)
        }
        #expect(statuses.map(\.status) == [200, 200, 429])
        #expect(Int(statuses[2].header("Retry-After") ?? "") ?? 0 > 0)
        #expect(try statuses[2].json()["errorCode"] as? String == "GENERAL")
        let other = try server.request("POST", "/ofrep/v1/evaluate/flags", headers: [("X-API-Key", TestServer.apiKey)],
                                       body: OFREPTests.context("\"targetingKey\":\"quiet\""))
        #expect(other.status == 200)
    }

    @Test func aProjectMayServeItsServerTemplate() throws {
        let server = try TestServer {
            $0.projects.append(ProjectDeclaration(id: "backend", number: "555", apiKeys: ["backend-key"],
                                                  openFeatureNamespace: "firebase-server"))
        }
        try server.publish(Templates.single("client"), project: "backend")
        try server.publish(Templates.single("server"), project: "backend", namespace: "firebase-server")
        let flag = try server.request("POST", "/ofrep/v1/evaluate/flags/key", headers: [("X-API-Key", "backend-key")],
                                      body: OFREPTests.context("\"targetingKey\":\"a\""))
        #expect(try flag.json()["value"] as? String == "server")
        let demo = try server.request("POST", "/ofrep/v1/evaluate/flags/key", headers: [("X-API-Key", TestServer.apiKey)],
                                      body: OFREPTests.context("\"targetingKey\":\"a\""))
        #expect(demo.status == 404, "the demo project has no template")
    }
}

/// `If-None-Match` as the fetch and OFREP read it: a list, quotes and `W/` ignored, `*` never.
@Suite struct ETagMatchTests {
    @Test(arguments: [
        ("abc", true), ("\"abc\"", true), ("W/\"abc\"", true), (" x , \"abc\" ", true), ("\tabc\t", true),
        ("x,abc", true), ("abc,", true), (",abc", true), ("W/abc", true), ("W/ \"abc\"", false),
        ("*", false), ("\"abc", false), ("ab", false), ("", false), ("x,,y", false), ("\"\"", false), ("abcd", false),
        ("\"ab\"c", false), ("W/", false),
    ])
    func candidates(header: String, matches: Bool) {
        #expect(FetchEndpoint.etagMatches(header, "abc") == matches)
    }
}

/// A client polling with the same body and its ETag is answered 304 without a new evaluation,
/// and only while the template it was evaluated on is still the one served to it.
@Suite(.timeLimit(.minutes(1))) struct OFREPPollTests {
    func poll(_ server: TestServer, targetingKey: String, etag: String?) throws -> TestResponse {
        try server.request("POST", "/ofrep/v1/evaluate/flags",
                           headers: [("X-API-Key", TestServer.apiKey)] + (etag.map { [("If-None-Match", $0)] } ?? []),
                           body: OFREPTests.context("\"targetingKey\":\"\(targetingKey)\""))
    }

    @Test func repeatedPollsGet304UntilAPublishOrACanaryConcernsThem() throws {
        let server = try TestServer()
        let first = try server.publish(Templates.single("a"))
        let keys = (0..<16).map { "poller-\($0)" }
        var etags = try keys.map { try #require(try poll(server, targetingKey: $0, etag: nil).header("ETag")) }
        for (key, etag) in zip(keys, etags) {
            #expect(try poll(server, targetingKey: key, etag: etag).status == 304)
            #expect(try poll(server, targetingKey: key, etag: etag).status == 304)
        }
        let canary = try server.admin("PUT", "/v1/projects/demo/remoteConfig?canaryPercent=50",
                                      headers: [("If-Match", "etag-424242-\(first)")], body: Templates.single("canary"))
        #expect(canary.status == 200)
        var told = 0
        for (index, key) in keys.enumerated() {
            let answer = try poll(server, targetingKey: key, etag: etags[index])
            if answer.status == 200 {
                #expect(answer.text.contains("\"value\":\"canary\""))
                told += 1
                etags[index] = try #require(answer.header("ETag"))
            } else {
                #expect(answer.status == 304)
            }
        }
        #expect(told > 0 && told < keys.count, "only the canary's share has a new answer")
        #expect(try server.admin("POST", "/v1/projects/demo/remoteConfig:abort", headers: [("If-Match", "etag-424242-\(first + 1)")]).status == 200)
        try server.publish(Templates.single("b"))
        for (key, etag) in zip(keys, etags) {
            let answer = try poll(server, targetingKey: key, etag: etag)
            #expect(answer.status == 200 && answer.text.contains("\"value\":\"b\""))
        }
    }

    @Test func repeatedPollsAreThrottled() throws {
        let server = try TestServer { $0.fetch.throttleBurst = 2; $0.fetch.throttlePerMinute = 1 }
        try server.publish(Templates.single("a"))
        let etag = try #require(try poll(server, targetingKey: "busy", etag: nil).header("ETag"))
        #expect(try poll(server, targetingKey: "busy", etag: etag).status == 304)
        #expect(try poll(server, targetingKey: "busy", etag: etag).status == 429)
    }
}
