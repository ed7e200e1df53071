import ArgumentParser
import ConfigClient

struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Show the current template, or an older version."
    )

    @OptionGroup var selection: TemplateSelection

    @Option(name: [.short, .customLong("output")], help: "Write the template JSON to this file.")
    var output: String?

    @OptionGroup var global: TemplateOptions

    func run() async throws {
        let response = try await checked { () async throws(ConfigClientError) in
            try await global.adminClient().template(version: selection.versionNumber)
        }
        if let output {
            try Console.writeFile(Console.prettyJSON(response.body), to: output)
            Console.out("Wrote \(response.templateVersionNumber.map { "version \($0)" } ?? "the template") to \(output)\(response.etagNote)")
        } else if global.json {
            Console.write(response.body)
        } else {
            let summary = try await checked { () async throws(ConfigClientError) in try response.decode(TemplateSummary.self) }
            Console.out(summary.render(etag: response.etag))
        }
    }
}
