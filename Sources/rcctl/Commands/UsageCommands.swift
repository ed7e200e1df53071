import ArgumentParser
import ConfigClient
import Foundation

/// `--namespace`: which template of the project a usage command reads.
struct NamespaceOption: ParsableArguments {
    @Option(help: "The template's namespace: firebase (client) or firebase-server.")
    var namespace = "firebase"
}

/// `rcctl usage`: what clients read, per parameter (viewer).
struct UsageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage",
        abstract: "Show how often clients evaluated each parameter, from which source, app version and platform.",
        discussion: """
            Counted exactly by the server for every fetch and OpenFeature evaluation (docs/insights.md). \
            The windows are hour, day, week and month (30 days), each the current hour and the whole hours \
            before it.
            """
    )

    @Argument(help: "Only these keys (all when none).")
    var keys: [String] = []

    @Option(help: "The window: hour, day, week or month.")
    var window = "day"

    @Option(help: "How many sources, app versions and platforms to show per parameter.")
    var top = 3

    @OptionGroup var template: NamespaceOption
    @OptionGroup var global: TemplateOptions

    func validate() throws {
        if !UsageReportText.windows.contains(window) { throw ValidationError("--window must be hour, day, week or month") }
        if top < 1 { throw ValidationError("--top must be at least 1") }
    }

    func run() async throws {
        let report = try await UsageCommand.report(global, namespace: template.namespace)
        guard let report else { return }
        Console.out(report.table(window: window, keys: Set(keys), limit: top))
    }

    /// Reads the report; prints its JSON and returns nil with `--json`.
    static func report(_ global: TemplateOptions, namespace: String) async throws -> UsageReportText? {
        let client = global.adminClient()
        let response = try await checked { () async throws(ConfigClientError) in try await client.usage(namespace: namespace) }
        if global.json {
            Console.write(response.body)
            return nil
        }
        return try await checked { () async throws(ConfigClientError) in try response.decode(UsageReportText.self) }
    }
}

/// `rcctl stale …`: the parameters that could be made permanent or removed, and the marks and
/// days that decide it.
struct StaleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stale",
        abstract: "List stale and never-evaluated parameters; mark kill switches permanent; set the project's stale days.",
        subcommands: [List.self, MarkPermanent.self, UnmarkPermanent.self, Days.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the stale parameters (and why) and those never evaluated since they were published.",
            discussion: "With --fail-on-stale, exits 1 when a parameter is stale (for CI).")
        @Flag(help: "Exit 1 when a parameter is stale.") var failOnStale = false
        @OptionGroup var template: NamespaceOption
        @OptionGroup var global: TemplateOptions

        func run() async throws {
            guard let report = try await UsageCommand.report(global, namespace: template.namespace) else { return }
            Console.out(report.staleSummary)
            if failOnStale, !report.stale.isEmpty {
                let count = report.stale.count
                throw CLIError(message: "\(count) stale parameter\(count == 1 ? "" : "s")", exitCode: CLIError.serverExitCode)
            }
        }
    }

    struct MarkPermanent: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mark-permanent", abstract: "Mark parameters permanent (kill switches): never stale. Needs an editor.")
        @Argument(help: "The keys.") var keys: [String]
        @OptionGroup var template: NamespaceOption
        @OptionGroup var global: TemplateOptions

        func run() async throws { try await StaleCommand.mark(keys, permanent: true, template.namespace, global) }
    }

    struct UnmarkPermanent: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unmark-permanent", abstract: "Make parameters subject to the stale rule again. Needs an editor.")
        @Argument(help: "The keys.") var keys: [String]
        @OptionGroup var template: NamespaceOption
        @OptionGroup var global: TemplateOptions

        func run() async throws { try await StaleCommand.mark(keys, permanent: false, template.namespace, global) }
    }

    struct Days: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the project's stale days, or set them (1–365; an editor).")
        @Argument(help: "The new number of days.") var days: Int?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let client = global.adminClient()
            let days = days
            let response = try await checked { () async throws(ConfigClientError) in
                if let days { try await client.setStaleDays(days) } else { try await client.usageSettings() }
            }
            if global.json { return Console.write(response.body) }
            struct Settings: Decodable { var staleDays: Int }
            let settings = try await checked { () async throws(ConfigClientError) in try response.decode(Settings.self) }
            Console.out("Stale after \(settings.staleDays) days")
        }
    }

    static func mark(_ keys: [String], permanent: Bool, _ namespace: String, _ global: TemplateOptions) async throws {
        let client = global.adminClient()
        struct Marked: Decodable { var key: String, changed: Bool }
        var changed: [String] = []
        for key in keys {
            let response = try await checked { () async throws(ConfigClientError) in
                try await client.setPermanent(namespace: namespace, parameter: key, permanent: permanent)
            }
            if global.json {
                Console.write(response.body)
            } else if try await checked({ () async throws(ConfigClientError) in try response.decode(Marked.self) }).changed {
                changed.append(key)
            }
        }
        if global.json { return }
        Console.out(changed.isEmpty ? "Nothing changed" : "\(permanent ? "Marked" : "Unmarked") \(changed.joined(separator: ", "))")
    }
}
