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
}
