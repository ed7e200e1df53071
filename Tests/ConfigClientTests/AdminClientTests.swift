import Foundation
import Testing
@testable import ConfigClient

@Suite struct AdminClientTests {
    private func admin(_ transport: FakeTransport, token: String? = "secret") -> AdminClient {
        AdminClient(baseURL: "http://h:8080", project: "p1", token: token, transport: transport)
    }

    private func ok(_ body: String = "{}", etag: String? = nil) -> Result<HTTPResponse, TransportError> {
        .success(HTTPResponse(status: 200, headers: etag.map { ["ETag": $0] } ?? [:], body: Data(body.utf8)))
    }

    @Test func templateAtVersionWithBearerToken() async throws {
        let transport = FakeTransport([ok(etag: "etag-1-3")])
        let response = try await admin(transport).template(version: 3)
        #expect(response.etag == "etag-1-3")
        let request = try #require(transport.requests.first)
        #expect(request.method == .get)
        #expect(request.url == "http://h:8080/v1/projects/p1/remoteConfig?versionNumber=3")
        #expect(request.headers["Authorization"] == "Bearer secret")
    }

    @Test func noTokenSendsNoAuthorization() async throws {
        let transport = FakeTransport([ok()])
        _ = try await admin(transport, token: nil).template()
        #expect(transport.requests.first?.headers["Authorization"] == nil)
    }

    @Test func publishSendsIfMatchAndValidateOnly() async throws {
        let transport = FakeTransport([ok(etag: "etag-1-0")])
        let template = Data(#"{"parameters":{}}"#.utf8)
        _ = try await admin(transport).publish(template, ifMatch: "etag-1-2", validateOnly: true)
        let request = try #require(transport.requests.first)
        #expect(request.method == .put)
        #expect(request.url == "http://h:8080/v1/projects/p1/remoteConfig?validateOnly=true")
        #expect(request.headers["If-Match"] == "etag-1-2")
        #expect(request.body == template)
    }

    @Test func rollbackBodyCarriesTheVersionAsString() async throws {
        let transport = FakeTransport([ok()])
        _ = try await admin(transport).rollback(to: 6)
        let request = try #require(transport.requests.first)
        #expect(request.url == "http://h:8080/v1/projects/p1/remoteConfig:rollback")
        #expect(request.body == Data(#"{"versionNumber":"6"}"#.utf8))
    }

    @Test func listVersionsDiffAndEvaluatePaths() async throws {
        let transport = FakeTransport([ok(#"{"versions":[{"versionNumber":"2","updateType":"ROLLBACK","rollbackSource":"1"}],"nextPageToken":""}"#), ok(), ok()])
        let client = admin(transport)
        let page = try await client.listVersions(pageSize: 5, pageToken: "t").decode(VersionPage.self)
        #expect(page.versions.map(\.versionNumber) == [2])
        #expect(page.versions.first?.rollbackSource == 1)
        #expect(page.nextPageToken == nil)
        _ = try await client.diff(from: 1, to: 2)
        _ = try await client.evaluate(context: Data("{}".utf8))
        #expect(transport.requests.map(\.url) == [
            "http://h:8080/v1/projects/p1/remoteConfig:listVersions?pageSize=5&pageToken=t",
            "http://h:8080/v1/projects/p1/remoteConfig:diff?from=1&to=2",
            "http://h:8080/v1/projects/p1/remoteConfig:evaluate",
        ])
        #expect(transport.requests.last?.method == .post)
    }

    @Test func anEnvironmentsTemplateCallsGoUnderItAndProductionsKeepTheFirebasePaths() async throws {
        let transport = FakeTransport(Array(repeating: ok(), count: 7))
        let staging = AdminClient(baseURL: "http://h:8080", project: "p1", environment: "staging", token: "t", transport: transport)
        let production = AdminClient(baseURL: "http://h:8080", project: "p1", environment: "production", token: "t", transport: transport)
        _ = try await staging.template(version: 2)
        _ = try await staging.changeRequests(namespace: "firebase-server")
        _ = try await staging.compare(with: "production")
        _ = try await production.template()
        _ = try await production.promote(.init(from: "staging", parameters: ["a", "b"]), ifMatch: "etag-1-3")
        _ = try await staging.apiKeys()
        _ = try await staging.updateEnvironment("staging", soakSeconds: 60)
        #expect(transport.requests.map(\.url) == [
            "http://h:8080/v1/projects/p1/environments/staging/remoteConfig?versionNumber=2",
            "http://h:8080/v1/projects/p1/environments/staging/namespaces/firebase-server/changeRequests",
            "http://h:8080/v1/projects/p1/environments/staging/namespaces/firebase/remoteConfig:compare?with=production",
            "http://h:8080/v1/projects/p1/remoteConfig",
            "http://h:8080/v1/projects/p1/namespaces/firebase/remoteConfig:promoteFrom",
            "http://h:8080/v1/projects/p1/apiKeys",
            "http://h:8080/v1/projects/p1/environments/staging",
        ])
        let promotion = transport.requests[4]
        #expect(promotion.body == Data(#"{"from":"staging","parameters":["a","b"]}"#.utf8))
        #expect(promotion.headers["If-Match"] == "etag-1-3")
        #expect(transport.requests[6].method == .patch && transport.requests[6].body == Data(#"{"soakSeconds":60}"#.utf8))
    }

    @Test func versionMismatchKeepsTheServersMessage() async throws {
        let body = #"{"error":{"code":400,"message":"[VERSION_MISMATCH]: Expected version 6, found 8","status":"FAILED_PRECONDITION"}}"#
        let transport = FakeTransport([.success(HTTPResponse(status: 400, body: Data(body.utf8)))])
        await #expect(throws: ConfigClientError.server(ServerError(httpStatus: 400, status: "FAILED_PRECONDITION", message: "[VERSION_MISMATCH]: Expected version 6, found 8"))) {
            try await admin(transport).publish(Data("{}".utf8), ifMatch: "etag-1-6")
        }
    }

    @Test func unreachableServerIsATransportError() async throws {
        await #expect(throws: ConfigClientError.transport(TransportError(.connectionFailed, "http://h:8080/v1/projects/p1/remoteConfig: Connection refused"))) {
            try await admin(FakeTransport()).template()
        }
    }
}
