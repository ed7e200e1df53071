import ConfigServer
import Foundation
import Testing

/// The served API description, and regressions found by fuzzing against it (scripts/schemathesis).
@Suite(.timeLimit(.minutes(1))) final class OpenAPITests {
    let server: TestServer

    init() throws { server = try TestServer() }

    @Test func servesTheOpenAPIDocument() throws {
        let response = try server.request("GET", "/openapi.json")
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
        let document = try response.json()
        #expect((document["openapi"] as? String)?.hasPrefix("3.") == true)
        let paths = try #require(document["paths"] as? [String: Any])
        #expect(paths["/v1/projects/{project}/namespaces/{namespace}:fetch"] != nil)
    }

    @Test func projectNumbersAreASCIIDigits() throws {
        // '٣' is a digit to Character.isNumber but not to the store: this used to be a 500.
        let arabic = try server.admin("POST", "/v1/projects", body: "{\"projectId\":\"arabic\",\"projectNumber\":\"٣٣\"}")
        #expect(arabic.status == 400)
        #expect(arabic.errorStatus == "INVALID_ARGUMENT")
        let long = String(repeating: "1", count: 33)
        #expect(try server.admin("POST", "/v1/projects", body: "{\"projectId\":\"long\",\"projectNumber\":\"\(long)\"}").status == 400)
        let accented = try server.admin("POST", "/v1/projects", body: "{\"projectId\":\"café\",\"projectNumber\":\"55\"}")
        #expect(accented.status == 400)
        let longID = String(repeating: "a", count: 129)
        #expect(try server.admin("POST", "/v1/projects", body: "{\"projectId\":\"\(longID)\",\"projectNumber\":\"56\"}").status == 400)
        #expect(try server.admin("POST", "/v1/projects", body: "{\"projectId\":\"plain-id_2\",\"projectNumber\":\"57\"}").status == 200)
    }

    /// Secret scanners and schema checks are written from the document: what is minted must
    /// match the patterns it declares.
    @Test func mintedSecretsMatchTheServedPatterns() throws {
        let document = try server.request("GET", "/openapi.json").json()
        let tokenPattern = try #require(Self.member(document, "components", "schemas", "Token", "properties", "token", "pattern") as? String)
        let keyAnswer = Self.member(document, "paths", "/v1/projects/{project}/apiKeys", "post", "responses", "200", "content")
        let keyPattern = try #require(Self.member(keyAnswer, "application/json", "schema", "properties", "key", "pattern") as? String)

        #expect(try server.admin("POST", "/v1/principals", body: #"{"kind":"service","displayName":"CI"}"#).status == 200)
        let token = try #require(try server.admin("POST", "/v1/tokens", body: #"{"principal":"svc-ci","name":"deploy"}"#)
            .json()["token"] as? String)
        #expect(token.wholeMatch(of: try Regex(tokenPattern)) != nil, "\(token) against \(tokenPattern)")
        let key = try #require(try server.admin("POST", "/v1/projects/demo/apiKeys", body: #"{"name":"ios"}"#).json()["key"] as? String)
        #expect(key.wholeMatch(of: try Regex(keyPattern)) != nil, "\(key) against \(keyPattern)")
    }

    /// The member at `path` of a JSON object, nil when any step is missing.
    static func member(_ value: Any?, _ path: String...) -> Any? {
        path.reduce(value) { ($0 as? [String: Any])?[$1] }
    }
}
