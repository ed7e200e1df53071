import Foundation
import Testing
@testable import ConfigClient

@Suite struct RequestEncodingTests {
    private let requests = ClientRequests(configuration: testConfiguration(baseURL: "http://127.0.0.1:8080/"), appInstanceId: "instance-1")

    private func json(_ data: Data?) throws -> [String: Any] {
        let data = try #require(data)
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func fetchRequestLineAndHeaders() {
        let request = requests.fetch(etag: "etag-7", type: .base)
        #expect(request.method == .post)
        #expect(request.url == "http://127.0.0.1:8080/v1/projects/example-project/namespaces/firebase:fetch")
        #expect(request.headers["X-Goog-Api-Key"] == "key-1")
        #expect(request.headers["If-None-Match"] == "etag-7")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.headers["X-Firebase-RC-Fetch-Type"] == "BASE/1")
        #expect(request.timeout == 60)
    }

    @Test func fetchWithoutEtagSendsNoIfNoneMatch() {
        let request = requests.fetch(etag: nil, type: .realtime(attempt: 2))
        #expect(request.headers["If-None-Match"] == nil)
        #expect(request.headers["X-Firebase-RC-Fetch-Type"] == "REALTIME/2")
    }

    @Test func fetchBodyIsFlatCamelCaseAndOmitsMissingFacts() throws {
        let body = try json(requests.fetch(etag: nil, type: .base).body)
        #expect(Set(body.keys) == ["appInstanceId", "appId", "sdkVersion", "countryCode", "customSignals"])
        #expect(body["appInstanceId"] as? String == "instance-1")
        #expect(body["appId"] as? String == "1:123456789012:web:0a1b2c3d4e5f6789")
        #expect(body["countryCode"] as? String == "DE")
        #expect(body["customSignals"] as? [String: String] == ["plan": "pro"])
    }

    @Test func streamRequestCarriesLastKnownVersionAsString() throws {
        let request = requests.streamInvalidations(lastKnownVersion: 41, etag: nil)
        #expect(request.url == "http://127.0.0.1:8080/v1/projects/example-project/namespaces/firebase:streamFetchInvalidations")
        let body = try json(request.body)
        #expect(body["lastKnownVersionNumber"] as? String == "41")
        #expect(body["project"] as? String == "example-project")
        #expect(body["namespace"] as? String == "firebase")
        #expect(body["appInstanceId"] as? String == "instance-1")
    }

    @Test func projectIsEscapedInThePath() {
        #expect(APIPaths(baseURL: "http://h", project: "a/b c").remoteConfig(":listVersions", query: [("pageSize", "5")])
            == "http://h/v1/projects/a%2Fb%20c/remoteConfig:listVersions?pageSize=5")
    }

    @Test func fetchAnswerAcceptsNumericVersionAndDefaultsState() throws {
        let answer = try FetchResponse.decode(HTTPResponse(status: 200, headers: ["ETag": "e"], body: Data(#"{"entries":{"a":"1"},"templateVersion":9}"#.utf8)))
        #expect(answer == FetchResponse(state: .update, entries: ["a": "1"], templateVersion: 9, etag: "e"))
    }

    @Test func rolloutMetadataIsKeptByKey() throws {
        let body = #"{"entries":{"a":"1","b":"2"},"rolloutMetadata":[{"rolloutId":"r1","variantId":"enabled","affectedParameterKeys":["a","b"]},"#
            + #"{"rolloutId":"r2","variantId":"v2","affectedParameterKeys":["a"]}],"state":"UPDATE","templateVersion":"3"}"#
        let answer = try FetchResponse.decode(HTTPResponse(status: 200, body: Data(body.utf8)))
        #expect(answer.rollouts == ["a": ["r1": "enabled", "r2": "v2"], "b": ["r1": "enabled"]])
    }

    @Test func errorAnswerBecomesServerError() {
        let body = Data(#"{"error":{"code":403,"message":"API key not valid","status":"PERMISSION_DENIED"}}"#.utf8)
        #expect(throws: ConfigClientError.server(ServerError(httpStatus: 403, status: "PERMISSION_DENIED", message: "API key not valid"))) {
            try FetchResponse.decode(HTTPResponse(status: 403, body: body))
        }
    }

    @Test func arrayWrappedErrorAndPlainTextErrors() {
        let wrapped = ServerError(response: HTTPResponse(status: 429, body: Data(#"[{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}]"#.utf8)))
        #expect(wrapped == ServerError(httpStatus: 429, status: "RESOURCE_EXHAUSTED", message: "slow down"))
        let plain = ServerError(response: HTTPResponse(status: 502, body: Data("bad gateway\n".utf8)))
        #expect(plain.description == "HTTP 502: bad gateway")
    }

    @Test func malformedAnswerNamesTheField() {
        let error = #expect(throws: ConfigClientError.self) {
            try FetchResponse.decode(HTTPResponse(status: 200, body: Data(#"{"entries":{"a":1},"state":"UPDATE"}"#.utf8)))
        }
        #expect(error?.description.contains("entries.a") == true)
    }
}
