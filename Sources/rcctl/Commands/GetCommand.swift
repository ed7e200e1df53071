import ArgumentParser
import ConfigClient

struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Show the current template, or an older version."
    )

    @Option(name: .customLong("version"), help: "Version number to show instead of the current one.")
    var versionNumber: Int64?

    @Option(name: [.short, .customLong("output")], help: "Write the template JSON to this file.")
    var output: String?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let versionNumber, versionNumber <= 0 { throw ValidationError("--version must be a positive version number") }
    }

    func run() async throws {
        let response = try await checked { () async throws(ConfigClientError) in
            try await global.adminClient().template(version: versionNumber)
        }
        if let output {
            try Console.writeFile(Console.prettyJSON(response.body), to: output)
            let version = (try? response.decode(TemplateSummary.self))?.version?.versionNumber
            Console.out("Wrote \(version.map { "version \($0)" } ?? "the template") to \(output)\(response.etag.map { " (ETag \($0))" } ?? "")")
        } else if global.json {
            Console.write(response.body)
        } else {
            let summary = try await checked { () async throws(ConfigClientError) in try response.decode(TemplateSummary.self) }
            Console.out(summary.render(etag: response.etag))
        }
    }
}
