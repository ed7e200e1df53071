import ConfigClient
import ConfigServer
import ServerCore
import Foundation
import Testing

/// Runs the example of `docs/client.md` against the real server, and keeps the page's copy of
/// it identical to the compiled file.
// Three minutes, not one: async tests share the test process's two cooperative threads with the
// blocking daemon and fault tests, and wait their turn when those hold both.
@Suite(.timeLimit(.minutes(3))) final class LiveKeysExampleTests {
    let server: ClientTestServer
    static let project = "example-project"

    init() throws {
        server = try ClientTestServer(projects: [
            ProjectDeclaration(id: Self.project, number: "123456789012", apiKeys: ["example-api-key"]),
        ])
    }

    func publish(_ values: [String: String]) async throws {
        try await server.publish(values, project: Self.project)
    }

    func app() throws -> AppRemoteConfig {
        try AppRemoteConfig(serverURL: server.baseURL, cacheDirectory: server.cacheDirectory)
    }

    @Test func liveKeysChangeWhileRunningTheOthersAtTheNextStart() async throws {
        let upload = #"{"maxMegabytes": 100, "fileTypes": ["pdf"]}"#
        try await publish(["banner_text": "Spring sale", "results_per_page": "50", "upload": upload])
        let app = try app()
        #expect(app.bannerText == "Welcome!")
        #expect(app.bannerSource == .default)

        let (changes, continuation) = AsyncStream.makeStream(of: Set<String>.self)
        let registration = await app.start { continuation.yield($0) }
        #expect(app.bannerText == "Spring sale")
        #expect(app.bannerSource == .remote)
        #expect(app.resultsPerPage == 50)
        #expect(app.upload == AppRemoteConfig.Upload(maxMegabytes: 100, fileTypes: ["pdf"]))
        #expect(!app.maintenanceMode)

        var liveChanges = changes.makeAsyncIterator()
        try await publish(["banner_text": "Summer sale", "maintenance_mode": "true", "results_per_page": "10", "upload": upload])
        #expect(await liveChanges.next() == ["banner_text", "maintenance_mode"])
        #expect(app.bannerText == "Summer sale")
        #expect(app.maintenanceMode)
        #expect(app.resultsPerPage == 50, "a key that is not live keeps its value while the app runs")

        // A publish of only a key that is not live calls nobody: the next change heard is the
        // banner's, published after it.
        try await publish(["banner_text": "Summer sale", "maintenance_mode": "true", "results_per_page": "5", "upload": upload])
        try await publish(["banner_text": "Autumn sale", "maintenance_mode": "true", "results_per_page": "5", "upload": upload])
        #expect(await liveChanges.next() == ["banner_text"])
        #expect(app.bannerText == "Autumn sale")
        #expect(app.resultsPerPage == 50)

        registration.remove()
        try await server.waitForHeld(0)
        let nextStart = try self.app()
        #expect(nextStart.resultsPerPage == 5, "the next start activates the cached fetched config")
        #expect(nextStart.bannerText == "Autumn sale")
    }

    @Test func theDocumentationShowsTheCompiledExample() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let examplePath = "Tests/ConfigClientTests/LiveKeysExample.swift"
        let example = try String(contentsOf: root.appendingPathComponent(examplePath), encoding: .utf8)
        let page = try String(contentsOf: root.appendingPathComponent("docs/client.md"), encoding: .utf8)
        let block = try #require(Self.swiftBlock(in: page, after: "<!-- \(examplePath) -->"), "docs/client.md has no Swift block after the example's marker")
        let firstDifference = zip(block.split(separator: "\n", omittingEmptySubsequences: false), example.split(separator: "\n", omittingEmptySubsequences: false))
            .enumerated().first { $0.element.0 != $0.element.1 }.map { $0.offset + 1 }
        #expect(block == example, "docs/client.md must show \(examplePath) exactly (first difference at line \(firstDifference.map(String.init) ?? "end") of the file); copy the file into the block")
    }

    /// The text of the first fenced Swift block after `marker`, with its last newline.
    static func swiftBlock(in page: String, after marker: String) -> String? {
        guard let markerEnd = page.range(of: marker)?.upperBound,
              let open = page.range(of: "\n```swift\n", range: markerEnd..<page.endIndex),
              let close = page.range(of: "\n```\n", range: open.upperBound..<page.endIndex)
        else { return nil }
        return String(page[open.upperBound..<close.lowerBound]) + "\n"
    }
}
