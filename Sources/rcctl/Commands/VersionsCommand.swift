import ArgumentParser
import ConfigClient
import Foundation

struct VersionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "versions",
        abstract: "List published versions, newest first."
    )

    @Option(help: "Most versions to list.")
    var limit = 20

    @OptionGroup var global: TemplateOptions

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        let client = global.adminClient()
        var versions: [TemplateVersion] = []
        var raw: [Any] = []
        var token: String?
        repeat {
            let pageToken = token
            let response = try await checked { () async throws(ConfigClientError) in
                try await client.listVersions(pageSize: min(limit - versions.count, 300), pageToken: pageToken)
            }
            let page = try await checked { () async throws(ConfigClientError) in try response.decode(VersionPage.self) }
            versions += page.versions
            if global.json {
                // The versions exactly as the server wrote them, fields rcctl does not model included.
                let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
                raw += (object?["versions"] as? [Any]) ?? []
            }
            token = page.nextPageToken
        } while token != nil && versions.count < limit
        if global.json {
            let data = try JSONSerialization.data(withJSONObject: ["versions": Array(raw.prefix(limit))], options: [.prettyPrinted, .sortedKeys])
            Console.write(data)
        } else {
            Console.out(VersionTable.render(Array(versions.prefix(limit))))
            if token != nil { Console.out("(more versions; raise --limit to see them)") }
        }
    }
}
