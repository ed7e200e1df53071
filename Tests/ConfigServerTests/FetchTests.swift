import ConfigCore
import ConfigServer
import ServerCore
import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(1))) final class FetchTests {
    let server: TestServer

    init() throws {
        server = try TestServer { $0.fetch.throttleBurst = 3; $0.fetch.throttlePerMinute = 1 }
        try server.publish(Templates.basic)
    }

    func fetch(_ body: String, headers: [(String, String)] = [], project: String = "demo") throws -> TestResponse {
        try server.request("POST", "/v1/projects/\(project)/namespaces/firebase:fetch",
                           headers: [("X-Goog-Api-Key", TestServer.apiKey)] + headers, body: body)
    }

    @Test func androidBodyGetsEvaluatedEntries() throws {
        let response = try fetch("{\"appInstanceId\":\"a1\",\"appId\":\"1:424242:android:ab\",\"customSignals\":{\"plan\":\"pro\"}}")
        #expect(response.status == 200)
        #expect(response.text == "{\"entries\":{\"limit\":\"10\",\"welcome\":\"hi pro\"},\"state\":\"UPDATE\",\"templateVersion\":\"1\"}")
        #expect(response.header("ETag")?.hasPrefix("etag-424242-firebase-fetch-") == true)
        #expect(response.header("Access-Control-Expose-Headers") == "ETag")
    }

    @Test func iosLenientSnakeCaseBodyByProjectID() throws {
        let response = try fetch("{app_instance_id:'i1', app_id:'1:424242:ios:ab', country_code:'us'}")
        #expect(response.text.contains("\"welcome\":\"hi ios\""))
    }

    @Test func gzipBodiesAreSniffed() throws {
        let plain = Array("{\"appInstanceId\":\"g1\",\"appId\":\"1:424242:ios:ab\"}".utf8)
        let compressed = try GzipWriter.compress(plain)
        let client = try server.client()
        try client.send(TestClient.format("POST", "/v1/projects/424242/namespaces/firebase:fetch",
                                          headers: [("X-Goog-Api-Key", TestServer.apiKey), ("Content-Encoding", "gzip")], body: compressed))
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text.contains("hi ios"))
        // JS claims gzip but sends plain JSON.
        #expect(try fetch(String(decoding: plain, as: UTF8.self), headers: [("Content-Encoding", "gzip")]).status == 200)
    }

    @Test func sameETagGivesNoChangeWithTheVersion() throws {
        let body = "{\"appInstanceId\":\"n1\",\"appId\":\"1:424242:web:ab\"}"
        let first = try fetch(body)
        let etag = try #require(first.header("ETag"))
        let second = try fetch(body, headers: [("If-None-Match", etag)])
        #expect(second.status == 200)
        #expect(second.text == "{\"state\":\"NO_CHANGE\",\"templateVersion\":\"1\"}")
        #expect(second.header("ETag") == etag)
        #expect(try fetch(body, headers: [("If-None-Match", "*")]).text.contains("UPDATE"))
    }

    @Test func noTemplateAndMissingFields() throws {
        _ = try server.admin("POST", "/v1/projects", body: "{\"projectId\":\"empty\",\"projectNumber\":\"5\"}")
        let key = try #require(try server.admin("POST", "/v1/projects/5/apiKeys", body: "{}").json()["key"] as? String)
        let response = try server.request("POST", "/v1/projects/5/namespaces/firebase:fetch", headers: [("X-Goog-Api-Key", key)],
                                          body: "{\"appInstanceId\":\"x\",\"appId\":\"1:5:web:ab\"}")
        #expect(response.text == "{\"entries\":{},\"state\":\"NO_TEMPLATE\",\"templateVersion\":\"0\"}")
        #expect(try fetch("{\"appId\":\"1:424242:web:ab\"}").status == 400)
        #expect(try fetch("{\"appInstanceId\":").status == 400)
    }

    /// A template that leaves this client nothing (its only parameter falls back to the app's
    /// in-app default) answers EMPTY_CONFIG with empty entries; another client still gets UPDATE.
    @Test func aClientLeftWithNothingGetsEmptyConfig() throws {
        let version = try server.publish("""
            {"conditions": [{"name": "ios", "expression": "device.os == 'ios'"}],
             "parameters": {"banner": {"defaultValue": {"useInAppDefault": true},
                                       "conditionalValues": {"ios": {"value": "on"}}}}}
            """)
        let android = try fetch("{\"appInstanceId\":\"e1\",\"appId\":\"1:424242:android:ab\"}")
        #expect(android.status == 200)
        #expect(android.text == "{\"entries\":{},\"state\":\"EMPTY_CONFIG\",\"templateVersion\":\"\(version)\"}")
        let ios = try fetch("{\"appInstanceId\":\"e2\",\"appId\":\"1:424242:ios:ab\"}")
        #expect(ios.text == "{\"entries\":{\"banner\":\"on\"},\"state\":\"UPDATE\",\"templateVersion\":\"\(version)\"}")
    }

    /// Clients that send the same country share the outcome of the country rule (the server
    /// reuses it), yet each gets its own percent bucket.
    @Test func clientsSharingStableInputsKeepTheirOwnPercentBuckets() throws {
        try server.publish("""
        {"conditions":[{"name":"us_half","expression":"device.country in ['US'] && percent('s1') <= 50"},
                       {"name":"us","expression":"device.country in ['US']"}],
         "parameters":{"v":{"defaultValue":{"value":"d"},"conditionalValues":{"us_half":{"value":"half"},"us":{"value":"us"}}}}}
        """)
        var seen = Set<String>()
        for index in 0..<24 {
            let id = "bucket-\(index)"
            let inHalf = PercentBucket.microPercentile(seed: "s1", randomizationId: id) <= 50_000_000
            let body = "{\"appInstanceId\":\"\(id)\",\"appId\":\"1:424242:web:ab\",\"countryCode\":\"US\"}"
            let value = try fetch(body).text
            #expect(value.contains(inHalf ? "\"v\":\"half\"" : "\"v\":\"us\""), "\(id): \(value)")
            seen.insert(value)
        }
        #expect(seen.count == 2)
        let germany = try fetch("{\"appInstanceId\":\"bucket-0\",\"appId\":\"1:424242:web:ab\",\"countryCode\":\"DE\"}")
        #expect(germany.text.contains("\"v\":\"d\""))
    }

    @Test func apiKeyIsRequired() throws {
        let none = try server.request("POST", "/v1/projects/demo/namespaces/firebase:fetch", body: "{\"appInstanceId\":\"k\",\"appId\":\"a\"}")
        #expect(none.status == 401)
        let wrong = try server.request("POST", "/v1/projects/demo/namespaces/firebase:fetch?key=nope", body: "{\"appInstanceId\":\"k\",\"appId\":\"a\"}")
        #expect(wrong.status == 403)
        // A browser page on another origin must see the status, not a network error.
        for response in [none, wrong] {
            #expect(response.header("Access-Control-Allow-Origin") == "*")
        }
    }

    @Test func throttlingAnswers429WithRetryAfter() throws {
        let body = "{\"appInstanceId\":\"busy\",\"appId\":\"1:424242:web:ab\"}"
        for _ in 0..<3 { #expect(try fetch(body).status == 200) }
        let throttled = try fetch(body)
        #expect(throttled.status == 429)
        #expect(throttled.errorStatus == "RESOURCE_EXHAUSTED")
        #expect(throttled.header("Retry-After") != nil)
    }

    @Test func corsPreflight() throws {
        let response = try server.request("OPTIONS", "/v1/projects/demo/namespaces/firebase:fetch")
        #expect(response.status == 204)
        #expect(response.header("Access-Control-Allow-Headers")?.contains("X-Goog-Api-Key") == true)
        #expect(response.header("Access-Control-Allow-Origin") == "*")
    }

    /// Every answer of the routes browsers call carries the browser fields exactly once
    /// (answers, errors, preflights, cached fetch answers, streams); the management API none.
    @Test func browserFieldsAreOnEveryBrowserAnswerOnce() throws {
        try server.publish(Templates.single("a"))
        let body = "{\"appInstanceId\":\"c\",\"appId\":\"1:424242:web:ab\"}"
        var answers = [
            try fetch(body), try fetch(body),
            try server.request("OPTIONS", "/v1/projects/demo/namespaces/firebase:streamFetchInvalidations"),
            try server.request("POST", "/v1/projects/nope/namespaces/firebase:streamFetchInvalidations", body: "{}"),
            try server.request("GET", "/v1/projects/demo/namespaces/firebase:fetch"),
        ]
        let stream = try server.client()
        try stream.send(TestServer.streamRequest(lastKnown: "1"))
        answers.append(try stream.readHead())
        for answer in answers {
            let origins = answer.headers.filter { $0.0.lowercased() == "access-control-allow-origin" }
            #expect(origins.map(\.1) == ["*"], "\(answer.status): \(answer.headers)")
        }
        let admin = try server.admin("GET", "/v1/projects/demo/remoteConfig")
        #expect(admin.status == 200 && admin.header("Access-Control-Allow-Origin") == nil)
    }

    @Test func serverTemplatesEvaluateStructuredConditions() throws {
        let template = """
        {"conditions":[{"name":"beta","expression":"app.customSignal['tier'] == 'beta'"}],
         "parameters":{"model":{"defaultValue":{"value":"stable"},"conditionalValues":{"beta":{"value":"next"}}}}}
        """
        try server.publish(template, namespace: "firebase-server")
        let response = try server.request("POST", "/v1/projects/demo/namespaces/firebase-server:fetch",
                                          headers: [("X-Goog-Api-Key", TestServer.apiKey)],
                                          body: "{\"appInstanceId\":\"s\",\"customSignals\":{\"tier\":\"beta\"}}")
        #expect(response.text.contains("\"model\":\"next\""))
        let compiled = try server.admin("GET", "/v1/projects/demo/namespaces/firebase-server/serverRemoteConfig")
        #expect(compiled.text.contains("customSignal"))
    }
}
