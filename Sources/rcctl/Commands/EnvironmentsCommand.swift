import ArgumentParser
import ConfigClient
import Foundation

/// `rcctl envs …`: the project's environments (docs/environments.md).
struct EnvironmentsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "envs",
        abstract: "List the project's environments; create, rename or delete one, or set its soak rule.",
        discussion: """
            Every project has production, last; the others come before it in the order they were made, the \
            way a change moves (development, staging, production). Listing needs a viewer, changes an admin. \
            Commands on a template take --env (or RCS_ENV) to work on an environment's template.
            """,
        subcommands: [List.self, Create.self, Rename.self, Soak.self, Delete.self],
        defaultSubcommand: List.self
    )

    struct Environment: Decodable {
        var id: String, displayName: String, soakSeconds: Int64, createTime: String

        var soak: String { soakSeconds == 0 ? "-" : "\(soakSeconds) s" }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the environments in order, production last.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            struct Page: Decodable { var environments: [Environment] }
            try await global.run({ client throws(ConfigClientError) in try await client.environments() }, as: Page.self) { page in
                TextTable.render(header: ["ID", "NAME", "SOAK", "CREATED"],
                                 rows: page.environments.map { [$0.id, $0.displayName, $0.soak, $0.createTime] })
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an environment before production.")
        @Argument(help: "Its id: 1 to 30 lowercase letters, digits and hyphens, starting with a letter.") var id: String
        @Option(help: "Its display name (default: the id capitalized).") var name: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let (id, name) = (id, name)
            try await global.run({ client throws(ConfigClientError) in try await client.createEnvironment(id, displayName: name) },
                                 as: Environment.self) { "Created \($0.id) (\($0.displayName))" }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give an environment a new display name (its id stays).")
        @Argument(help: "The environment's id.") var id: String
        @Argument(help: "The new display name.") var name: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let (id, name) = (id, name)
            try await global.run({ client throws(ConfigClientError) in try await client.updateEnvironment(id, displayName: name) },
                                 as: Environment.self) { "Renamed \($0.id) to \($0.displayName)" }
        }
    }

    struct Soak: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set an environment's soak rule: promotions into it take only versions active that long where they come from.",
            discussion: "0 removes the rule. A promotion of a version active for less is refused ([SOAK_NOT_MET]).")
        @Argument(help: "The environment's id.") var id: String
        @Argument(help: "Seconds (0 to 7776000, 90 days).") var seconds: Int64
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if seconds < 0 { throw ValidationError("the soak takes 0 or more seconds") }
        }

        func run() async throws {
            let (id, seconds) = (id, seconds)
            try await global.run({ client throws(ConfigClientError) in try await client.updateEnvironment(id, soakSeconds: seconds) },
                                 as: Environment.self) { environment in
                environment.soakSeconds == 0
                    ? "\(environment.id) takes promoted versions at once"
                    : "\(environment.id) takes only versions active for \(environment.soakSeconds) s where they come from"
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete an environment that holds no published template and no API key (never production).")
        @Argument(help: "The environment's id.") var id: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let client = global.adminClient()
            let id = id
            _ = try await checked { () async throws(ConfigClientError) in try await client.deleteEnvironment(id) }
            Console.out("Deleted \(id)")
        }
    }
}
