import ConfigCore
@testable import ConfigServer
@testable import ServerCore
import ConfigStore
import Foundation
import Testing

/// While the store cannot be read, a worker that learns of a change keeps answering from the
/// versions it has: a config server does not go dark because its database did.
@Suite(.timeLimit(.minutes(1))) final class StoreOutageTests {
    let server: TestServer

    init() throws {
        server = try TestServer { $0.fetch.throttleBurst = 0 }
    }

    func fetch() throws -> TestResponse {
        try server.request("POST", "/v1/projects/demo/namespaces/firebase:fetch", headers: [("X-Goog-Api-Key", TestServer.apiKey)],
                           body: "{\"appInstanceId\":\"i\",\"appId\":\"1:424242:ios:ab\"}")
    }

    @Test func fetchesAreAnsweredFromMemoryWhenTheStoreCannotBeRead() throws {
        _ = try server.publish("{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"kept\"}}}}")
        #expect(try fetch().status == 200)
        // Another worker's acknowledged change (the counter moved) while the store is gone.
        let application = server.instance.application
        application.counters.bump(TemplateKey(project: "demo", namespace: .client))
        application.store.close()
        let answer = try fetch()
        #expect(answer.status == 200)
        #expect((try answer.json()["entries"] as? [String: String])?["k"] == "kept")
        let stream = try server.client()
        try stream.send(TestServer.streamRequest(lastKnown: "0"))
        #expect(try stream.readHead().status == 200)
        #expect(String(decoding: try #require(try stream.readChunk()), as: UTF8.self).contains("\"1\""))
    }
}
