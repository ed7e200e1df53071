import ArgumentParser
import ConfigClient

struct RollbackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback",
        abstract: "Publish a copy of an older version as the new current version."
    )

    @Argument(help: "Version number to roll back to.")
    var version: Int64

    @OptionGroup var global: TemplateOptions

    func validate() throws {
        if version <= 0 { throw ValidationError("the version to roll back to must be a positive number") }
    }

    func run() async throws {
        let response = try await checked { () async throws(ConfigClientError) in
            try await global.adminClient().rollback(to: version)
        }
        if global.json { return Console.write(response.body) }
        let current = response.templateVersionNumber
        Console.out("Rolled back to version \(version)\(current.map { "; current version is now \($0)" } ?? "")\(response.etagNote)")
    }
}
