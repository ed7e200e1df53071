import ArgumentParser
import ConfigClient

struct DiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two versions."
    )

    @Argument(help: "The older version.")
    var from: Int64

    @Argument(help: "The newer version.")
    var to: Int64

    @OptionGroup var global: TemplateOptions

    func validate() throws {
        if from <= 0 || to <= 0 { throw ValidationError("versions must be positive numbers") }
    }

    func run() async throws {
        let response = try await checked { () async throws(ConfigClientError) in
            try await global.adminClient().diff(from: from, to: to)
        }
        if global.json { return Console.write(Console.prettyJSON(response.body)) }
        Console.out(JSONOutline.render(response.body))
    }
}
