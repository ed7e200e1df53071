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
}
