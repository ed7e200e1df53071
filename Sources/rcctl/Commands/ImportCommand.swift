import ArgumentParser
import Foundation

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Publish a Firebase template export, dropping its `version` block."
    )

    @Argument(help: "Exported template JSON file (`-` for standard input).")
    var file: String

    @OptionGroup var options: PublishOptions
    @OptionGroup var global: TemplateOptions

    func run() async throws {
        var template = try Console.readJSONObject(Console.read(file), name: file)
        // The version block describes the source project's history, not this publish.
        template.removeValue(forKey: "version")
        let data = try JSONSerialization.data(withJSONObject: template, options: [.sortedKeys, .withoutEscapingSlashes])
        try await options.publish(data, global: global)
    }
}
