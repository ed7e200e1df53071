import ArgumentParser
import ConfigClient
import ConfigCore
import Foundation

struct CompareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Show how one environment's active template differs from another's.",
        discussion: """
            Prints the changes that turn --with's active template into --env's, as `rcctl diff` prints a diff \
            (only what differs): what `rcctl promote --from ENV --to WITH` of the whole template would bring.

            Exits 0 whether or not they differ; with --exit-code, 1 when they differ (as `git diff --exit-code`), \
            which a server's refusal also exits with.
            """
    )

    @Option(help: "The environment to compare with.")
    var with: String

    @Flag(help: "Exit 1 when the templates differ.")
    var exitCode = false

    @OptionGroup var template: NamespaceOption
    @OptionGroup var global: TemplateOptions

    func run() async throws {
        let client = global.adminClient()
        let (other, namespace) = (with, template.namespace)
        let response = try await checked { () async throws(ConfigClientError) in try await client.compare(with: other, namespace: namespace) }
        struct Comparison: Decodable { var environment: String, with: String, from: String, to: String, diff: JSONValue }
        let comparison = try await checked { () async throws(ConfigClientError) in try response.decode(Comparison.self) }
        let differences = JSONOutline.lines(comparison.diff, omittingEmpty: true)
        if global.json {
            Console.write(Console.prettyJSON(response.body))
        } else {
            let from = Self.describe(comparison.with, version: comparison.from)
            let to = Self.describe(comparison.environment, version: comparison.to)
            Console.out(differences.isEmpty ? "No differences between \(from) and \(to)" : "From \(from) to \(to):")
            differences.forEach(Console.out)
        }
        if exitCode, !differences.isEmpty {
            throw CLIError(message: "\(comparison.environment) differs from \(comparison.with)", exitCode: CLIError.serverExitCode)
        }
    }

    /// `staging version 3`, or `staging (nothing published)`.
    private static func describe(_ environment: String, version: String) -> String {
        version == "0" ? "\(environment) (nothing published)" : "\(environment) version \(version)"
    }
}
