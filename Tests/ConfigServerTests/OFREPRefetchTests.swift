import ConfigCore
@testable import ConfigServer
@testable import ServerCore
import ConfigStore
import Foundation
import Testing

/// OFREP answers read the store when this server may not have heard of a version yet: its
/// node's listener is absent, or an event stream (another node's, say) told the client of a
/// newer version, which its re-fetch names in `flagConfigEtag` (OFREP ADR-0008). The server
/// polls the store hourly here, so a version committed straight into the store, as another
/// node commits it, stays unheard of until a request reads it.
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

    func bulk(query: String = "", etag: String? = nil) throws -> TestResponse {
        try server.request("POST", "/ofrep/v1/evaluate/flags" + query,
                           headers: [("X-API-Key", TestServer.apiKey)] + (etag.map { [("If-None-Match", $0)] } ?? []),
                           body: OFREPTests.context("\"targetingKey\":\"user-1\""))
    }

    /// The value of flag `key` and the version of a bulk answer.
    static func answer(_ response: TestResponse) throws -> (value: String?, version: String?) {
        let json = try response.json()
        let flags = json["flags"] as? [[String: Any]] ?? []
        let value = flags.first { $0["key"] as? String == "key" }?["value"] as? String
        return (value, (json["metadata"] as? [String: Any])?["version"] as? String)
    }

    @Test func aRefetchNamingAVersionNotHeardOfReadsTheStoreFirst() throws {
        try start("a")
        let unheard = try server.commitUnheard("b")
        #expect(try Self.answer(try bulk()) == ("a", "1"), "the server has not heard of version 2")
        let refetch = try bulk(query: "?flagConfigEtag=\(unheard)&flagConfigLastModified=1771622898")
        #expect(refetch.status == 200)
        #expect(try Self.answer(refetch) == ("b", "\(unheard)"))
    }

    @Test func aRepeatedPollNamingANewerVersionIsNotAnswered304() throws {
        let tag = try start("a")
        #expect(try bulk(etag: tag).status == 304, "the repeated poll's shortcut")
        let unheard = try server.commitUnheard("b")
        let refetch = try bulk(query: "?flagConfigEtag=\(unheard)", etag: tag)
        try #require(refetch.status == 200)
        #expect(try Self.answer(refetch) == ("b", "\(unheard)"))
    }

    /// Not a version number, or not newer than the one served: answered as without it, from
    /// memory (the version committed meanwhile stays unseen), the 304 shortcut included.
    @Test(arguments: ["abc", "1", "0", "-3", "", "\"2\"", "2.0", "99999999999999999999"])
    func aFlagConfigEtagThatIsNotANewerVersionChangesNothing(etag: String) throws {
        let tag = try start("a")
        try server.commitUnheard("b")
        let query = "?flagConfigEtag=" + (try #require(etag.addingPercentEncoding(withAllowedCharacters: .alphanumerics)))
        #expect(try Self.answer(try bulk(query: query)) == ("a", "1"))
        #expect(try bulk(query: query, etag: tag).status == 304)
    }

    /// A version no one published: the store is read once and its answer given (no read after
    /// read until the version appears), however often the client names it.
    @Test func aFlagConfigEtagBeyondEveryVersionIsAnsweredAfterOneRead() throws {
        try start("a")
        let unheard = try server.commitUnheard("b")
        let first = try bulk(query: "?flagConfigEtag=9000000000")
        #expect(first.status == 200)
        #expect(try Self.answer(first) == ("b", "\(unheard)"))
        let tag = try #require(first.header("ETag"))
        #expect(try bulk(query: "?flagConfigEtag=9000000000", etag: tag).status == 304, "the store holds nothing newer")
        #expect(try bulk(query: "?flagConfigEtag=9223372036854775807").status == 200)
    }

    /// While the node's listener is absent, each request reads the store once before it is
    /// answered (docs/consistency.md), OFREP's as the fetch's.
    @Test func whileTheListenerIsAbsentEvaluationsAndEventStreamsReadTheStoreOnce() throws {
        try start("a")
        server.instance.application.counters.setListenerAbsent(true)
        let unheard = try server.commitUnheard("b")
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
