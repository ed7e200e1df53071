import ConfigCore
import Foundation
import TestSupport
import Testing
@testable import ConfigClient

@Suite struct ConfigClientFetchTests {
    /// Where the tests that keep a cache file keep it.
    private let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory("ConfigClientTests")
    }

    private func makeClient(_ transport: FakeTransport, clock: ManualClock = ManualClock(), directory: URL? = nil) -> ConfigClient {
        ConfigClient(configuration: testConfiguration(cacheDirectory: directory), transport: transport, now: { clock.now })
    }

    @Test func fetchedValuesAreInactiveUntilActivated() async throws {
        let transport = FakeTransport([fetchAnswer(["title": "Hi"], version: 3)])
        let client = makeClient(transport)
        client.setDefaults(["title": "Hello"])
        #expect(try await client.fetch() == .updated)
        #expect(client.string("title", default: "x") == "Hello")
        #expect(client.fetchedTemplateVersion == 3)
        #expect(client.activate())
        #expect(client.value(forKey: "title") == ConfigValue(stringValue: "Hi", source: .remote))
        #expect(client.activeTemplateVersion == 3)
        #expect(!client.activate())
    }

    @Test func minimumFetchIntervalSkipsTheRequest() async throws {
        let clock = ManualClock()
        let transport = FakeTransport([fetchAnswer(["a": "1"], version: 1), fetchAnswer(["a": "2"], version: 2, etag: "etag-2")])
        let client = makeClient(transport, clock: clock)
        client.minimumFetchInterval = 600
        #expect(try await client.fetch() == .updated)
        clock.advance(by: 599)
        #expect(try await client.fetch() == .skipped)
        #expect(transport.requests.count == 1)
        clock.advance(by: 1)
        #expect(try await client.fetchAndActivate())
        #expect(client.int("a", default: 0) == 2)
        // The second request offers the first answer's ETag.
        #expect(transport.requests.last?.headers["If-None-Match"] == "etag-1")
    }

    @Test func defaultIntervalIsTwelveHours() {
        #expect(makeClient(FakeTransport()).minimumFetchInterval == 43_200)
    }

    @Test func noChangeKeepsEntriesAndTakesTheNewVersion() async throws {
        let transport = FakeTransport([
            fetchAnswer(["a": "1"], version: 1),
            .success(HTTPResponse(status: 200, headers: ["ETag": "etag-1"], body: Data(#"{"state":"NO_CHANGE","templateVersion":"2"}"#.utf8))),
        ])
        let client = makeClient(transport)
        client.minimumFetchInterval = 0
        try await client.fetch()
        #expect(try await client.fetch() == .noChange)
        #expect(client.fetchedTemplateVersion == 2)
        client.activate()
        #expect(client.string("a", default: "") == "1")
    }

    @Test func emptyConfigClearsRemoteValues() async throws {
        let transport = FakeTransport([
            fetchAnswer(["a": "1"], version: 1),
            .success(HTTPResponse(status: 200, body: Data(#"{"state":"EMPTY_CONFIG","templateVersion":"2"}"#.utf8))),
        ])
        let client = makeClient(transport)
        client.minimumFetchInterval = 0
        try await client.fetchAndActivate()
        try await client.fetchAndActivate()
        #expect(client.source(forKey: "a") == .static)
    }

    @Test func readsWorkWhileTheServerIsDown() async throws {
        let client = makeClient(FakeTransport())
        client.setDefaults(["enabled": true, "limit": 5])
        await #expect(throws: ConfigClientError.self) { try await client.fetch() }
        #expect(client.bool("enabled", default: false))
        #expect(client.int("limit", default: 0) == 5)
        #expect(client.double("ratio", default: 0.25) == 0.25)
    }

    @Test func serverErrorKeepsTheLastFetchedConfig() async throws {
        let transport = FakeTransport([
            fetchAnswer(["a": "1"], version: 1),
            .success(HTTPResponse(status: 500, body: Data(#"{"error":{"code":500,"message":"boom","status":"INTERNAL"}}"#.utf8))),
        ])
        let client = makeClient(transport)
        client.minimumFetchInterval = 0
        try await client.fetchAndActivate()
        await #expect(throws: ConfigClientError.server(ServerError(httpStatus: 500, status: "INTERNAL", message: "boom"))) {
            try await client.fetch()
        }
        #expect(client.fetchedTemplateVersion == 1)
        #expect(client.string("a", default: "") == "1")
    }

    @Test func activateChosenKeysOnly() async throws {
        let transport = FakeTransport([fetchAnswer(["a": "1", "b": "1"], version: 1), fetchAnswer(["a": "2", "c": "2"], version: 2)])
        let client = makeClient(transport)
        client.minimumFetchInterval = 0
        try await client.fetchAndActivate()
        try await client.fetch()
        #expect(client.activate(keys: ["a", "b"]))
        #expect(client.string("a", default: "") == "2")
        #expect(client.source(forKey: "b") == .static)
        #expect(client.source(forKey: "c") == .static)
        #expect(client.activeTemplateVersion == 1)
        #expect(!client.activate(keys: ["a"]))
    }

    @Test func lastFetchedConfigIsActiveOnNextStart() async throws {
        let directory = temporary.url
        let clock = ManualClock()
        let first = makeClient(FakeTransport([fetchAnswer(["title": "Cached"], version: 7, etag: "etag-7")]), clock: clock, directory: directory)
        try await first.fetch()
        // Fetched but never activated in the first run.
        #expect(first.source(forKey: "title") == .static)

        let transport = FakeTransport([fetchAnswer(["title": "Fresh"], version: 8)])
        let second = makeClient(transport, clock: clock, directory: directory)
        #expect(second.value(forKey: "title") == ConfigValue(stringValue: "Cached", source: .remote))
        #expect(second.activeTemplateVersion == 7)
        #expect(second.lastFetchTime == clock.now)
        // Still fresh: the cached fetch time counts.
        #expect(try await second.fetch() == .skipped)
        clock.advance(by: 43_200)
        try await second.fetch()
        #expect(transport.requests.first?.headers["If-None-Match"] == "etag-7")
    }

    @Test func generatedInstanceIdIsKeptInTheCache() throws {
        let directory = temporary.url
        var configuration = testConfiguration(cacheDirectory: directory)
        configuration.appInstanceId = nil
        let first = ConfigClient(configuration: configuration, transport: FakeTransport())
        let second = ConfigClient(configuration: configuration, transport: FakeTransport())
        #expect(!first.appInstanceId.isEmpty)
        #expect(first.appInstanceId == second.appInstanceId)
    }

    @Test func corruptCacheFileIsIgnored() throws {
        let directory = temporary.url
        let cache = ConfigCache(directory: directory, project: "example-project", namespace: "firebase")
        try Data("{not json".utf8).write(to: try #require(cache.fileURL))
        let client = makeClient(FakeTransport(), directory: directory)
        client.setDefaults(["a": "d"])
        #expect(client.value(forKey: "a").source == .default)
        #expect(client.fetchedTemplateVersion == 0)
    }
}
