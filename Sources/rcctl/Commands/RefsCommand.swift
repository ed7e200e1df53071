import ArgumentParser
import ConfigClient
import Foundation

struct RefsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refs",
        abstract: "Show where a source tree uses the template's keys, and the keys it never uses.",
        discussion: """
            Reads Swift, Kotlin, Java, JavaScript/TypeScript, Dart and Python files under DIR (skipping \
            .git, node_modules, .build, Pods and other dependency and build folders). A key is used where a \
            string literal equals it; a Remote Config or OpenFeature accessor called with a literal the \
            template lacks (getString("old_key"), configValue(forKey: "x"), getBooleanValue("y", …)) is listed \
            as not in the template: that code always gets its in-app default.

            With --fail-on-unreferenced, exits 1 when a key is used nowhere (for CI).
            """
    )

    @Argument(help: "The source tree to read.")
    var directory: String

    @Option(help: "Read the keys from this template file instead of the server's active template.")
    var template: String?

    @Flag(help: "Exit 1 when a key of the template is used nowhere in DIR.")
    var failOnUnreferenced = false

    @OptionGroup var global: TemplateOptions

    func run() async throws {
        let keys = try await templateKeys()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIError.usage("\(directory) is not a directory")
        }
        let found = try SourceReferences(directory: URL(fileURLWithPath: directory), keys: keys)
        let unreferenced = keys.filter { found.referenced[$0] == nil }.sorted()
        if global.json {
            let object: [String: Any] = [
                "referenced": found.referenced.mapValues { $0.map(\.description) },
                "unreferenced": unreferenced,
                "notInTemplate": found.unknown.mapValues { $0.map(\.description) },
                "files": found.fileCount,
            ]
            Console.write(Console.prettyJSON(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
        } else {
            Console.out(render(found, keys: keys, unreferenced: unreferenced))
        }
        if failOnUnreferenced && !unreferenced.isEmpty {
            throw CLIError(message: "\(unreferenced.count) key\(unreferenced.count == 1 ? " is" : "s are") used nowhere in \(directory)",
                           exitCode: CLIError.serverExitCode)
        }
    }

    private func templateKeys() async throws -> Set<String> {
        let data: Data
        if let template {
            guard let contents = FileManager.default.contents(atPath: template) else { throw CLIError.usage("cannot read \(template)") }
            data = contents
        } else {
            data = try await checked { () async throws(ConfigClientError) in try await global.adminClient().template(version: nil) }.body
        }
        do {
            return try SourceReferences.keys(ofTemplate: data)
        } catch {
            throw CLIError.usage("\(template ?? "the server's answer") is not a template (JSON object)")
        }
    }

    private func render(_ found: SourceReferences, keys: Set<String>, unreferenced: [String]) -> String {
        var lines = ["Used (\(found.referenced.count) of \(keys.count) keys, in \(found.fileCount) files):"]
        for key in found.referenced.keys.sorted() {
            lines.append("  \(key)  " + found.referenced[key]!.map(\.description).joined(separator: ", "))
        }
        lines.append("Used nowhere (\(unreferenced.count)):")
        lines += unreferenced.map { "  \($0)" }
        if !found.unknown.isEmpty {
            lines.append("Read in code but not in the template (\(found.unknown.count)):")
            for key in found.unknown.keys.sorted() {
                lines.append("  \(key)  " + found.unknown[key]!.map(\.description).joined(separator: ", "))
            }
        }
        return lines.joined(separator: "\n")
    }
}
