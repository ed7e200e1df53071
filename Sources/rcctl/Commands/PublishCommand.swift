import ArgumentParser

struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish a template file.",
        discussion: "Without --etag or --force the current ETag is fetched first, so a concurrent publish is not overwritten."
    )

    @Argument(help: "Template JSON file (`-` for standard input).")
    var file: String

    @OptionGroup var options: PublishOptions
    @OptionGroup var global: TemplateOptions

    func run() async throws {
        let data = try Console.read(file)
        _ = try Console.readJSONObject(data, name: file)
        try await options.publish(data, global: global)
    }
}
