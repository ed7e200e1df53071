import ConfigCore
@testable import ConfigServer
import ConfigStore
import Foundation
import Testing

/// OFREP answers read the store when this server may not have heard of a version yet. The
/// server polls the store hourly here, so a version committed straight into the store, as
/// another node commits it, stays unheard of until a request reads it.
@Suite(.timeLimit(.minutes(1))) final class OFREPRefetchTests {
    let server: TestServer

    init() throws {
        server = try TestServer {
            $0.store.pollIntervalSeconds = 3600
            $0.fetch.throttleBurst = 0
        }
    }

    /// Publishes `value` through the server as version 1 and evaluates it once (the first
    /// answer after a publish reads the store, as the publisher's own check): the server then
    /// answers from memory. Returns the answer's ETag.
    @discardableResult
    func start(_ value: String) throws -> String {
        #expect(try server.publish(Templates.single(value)) == 1)
        let first = try bulk()
        #expect(try Self.answer(first) == (value, "1"))
        return try #require(first.header("ETag"))
    }

    /// Commits `value` as a new version without this server hearing of it; returns its number.
    @discardableResult
    func commitUnheard(_ value: String) throws -> Int64 {
        try server.instance.application.store.publish(
            project: "demo", namespace: .client, templateJSON: Array(Templates.single(value).utf8), expectedVersion: nil,
            metadata: PublishMetadata()
        ).versionNumber
    }

    func bulk() throws -> TestResponse {
        try server.request("POST", "/ofrep/v1/evaluate/flags", headers: [("X-API-Key", TestServer.apiKey)],
                           body: OFREPTests.context("\"targetingKey\":\"user-1\""))
    }

    /// The value of flag `key` and the version of a bulk answer.
    static func answer(_ response: TestResponse) throws -> (value: String?, version: String?) {
        let json = try response.json()
        let flags = json["flags"] as? [[String: Any]] ?? []
        let value = flags.first { $0["key"] as? String == "key" }?["value"] as? String
        return (value, (json["metadata"] as? [String: Any])?["version"] as? String)
    }

    /// While the node's listener is absent, each request reads the store once before it is
    /// answered (docs/consistency.md), OFREP's as the fetch's.
    @Test func whileTheListenerIsAbsentEvaluationsAndEventStreamsReadTheStoreOnce() throws {
        try start("a")
        server.instance.application.counters.setListenerAbsent(true)
        let unheard = try commitUnheard("b")
        #expect(try Self.answer(try bulk()) == ("b", "\(unheard)"))
        let flag = try server.request("POST", "/ofrep/v1/evaluate/flags/key", headers: [("X-API-Key", TestServer.apiKey)],
                                      body: OFREPTests.context("\"targetingKey\":\"user-2\""))
        #expect(try flag.json()["value"] as? String == "b")
        let stream = try server.client()
        try stream.send(TestClient.format("GET", "/ofrep/v1/sse?key=\(TestServer.apiKey)&targetingKey=user-3&version=1"))
        #expect(try stream.readHead().status == 200)
        let event = String(decoding: try #require(try stream.readChunk()), as: UTF8.self)
        #expect(event.hasPrefix("id:\(unheard)\n"), "\(event)")
    }
}
