import ArgumentParser
import ConfigClient

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the template as JSON (Firebase export format), ready for `rcctl import`."
    )

    @OptionGroup var selection: TemplateSelection

    @Option(name: [.short, .customLong("output")], help: "File to write; standard output when omitted.")
    var output: String?

    @OptionGroup var global: TemplateOptions

    func run() async throws {
        let response = try await checked { () async throws(ConfigClientError) in
            try await global.adminClient().template(version: selection.versionNumber)
        }
        let pretty = Console.prettyJSON(response.body)
        guard let output else { return Console.write(pretty) }
        try Console.writeFile(pretty, to: output)
        Console.error("Exported the template to \(output)")
    }
}
