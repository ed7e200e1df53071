import ArgumentParser
import ConfigClient

struct EvaluateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Evaluate the current template for a client context.",
        discussion: "The context file has the fields of a fetch request body, e.g. {\"appInstanceId\": \"i1\", \"appId\": \"1:1:web:1\", \"countryCode\": \"DE\"}."
    )

    @Option(help: "Client context JSON file (`-` for standard input).")
    var context: String

    @OptionGroup var global: TemplateOptions

    func run() async throws {
        let data = try Console.read(context)
        _ = try Console.readJSONObject(data, name: context)
        let response = try await checked { () async throws(ConfigClientError) in
            try await global.adminClient().evaluate(context: data)
        }
        if global.json { return Console.write(Console.prettyJSON(response.body)) }
        Console.out(JSONOutline.render(response.body))
    }
}
