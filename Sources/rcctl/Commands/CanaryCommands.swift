import ArgumentParser
import ConfigClient
import Foundation

/// The ETag of the running canary version: `etag` when given, else read from the server.
private func canaryETag(_ etag: String?, client: AdminClient) async throws(CLIError) -> String {
    if let etag { return etag }
    let status = try await checked { () async throws(ConfigClientError) in try await client.canary() }
    guard let etag = status.etag else {
        throw CLIError(message: "the server sent no ETag for the canary; pass --etag", exitCode: CLIError.serverExitCode)
    }
    return etag
}

struct CanaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "canary",
        abstract: "Show the running canary, or grow its share with --percent.",
        discussion: "A share only grows: the instances already told of the canary stay in it."
    )

    @Option(help: "The new share, in percent of the instances.")
    var percent: Double?

    @Option(help: "ETag of the canary version (If-Match); fetched from the server when omitted.")
    var etag: String?

    @OptionGroup var global: TemplateOptions

    func run() async throws {
        let client = global.adminClient()
        let response: AdminClient.Response
        if let percent {
            let ifMatch = try await canaryETag(etag, client: client)
            response = try await checked { () async throws(ConfigClientError) in try await client.setCanaryShare(percent, ifMatch: ifMatch) }
        } else {
            response = try await checked { () async throws(ConfigClientError) in try await client.canary() }
        }
        if global.json { return Console.write(response.body) }
        struct Status: Decodable {
            var canaryVersion: String
            var stableVersion: String
            var percent: Double
            var promoteTime: String?
        }
        let status = try await checked { () async throws(ConfigClientError) in try response.decode(Status.self) }
        Console.out("Version \(status.canaryVersion) is served to \(status.percent) % of the instances; the others get version "
            + "\(status.stableVersion)\(status.promoteTime.map { "; promoted at \($0)" } ?? "")\(response.etagNote)")
    }
}

/// What `promote` and `abort` take: the canary's ETag and the connection.
struct CanaryEndOptions: ParsableArguments {
    @Option(help: "ETag of the canary version (If-Match); fetched from the server when omitted.")
    var etag: String?

    @OptionGroup var global: TemplateOptions

    /// Promotes (`promote`) or aborts the canary and prints the outcome.
    func end(promote: Bool) async throws(CLIError) {
        let client = global.adminClient()
        let ifMatch = try await canaryETag(etag, client: client)
        let response = try await checked { () async throws(ConfigClientError) in try await client.endCanary(promote: promote, ifMatch: ifMatch) }
        if global.json { return Console.write(response.body) }
        let version = response.templateVersionNumber.map { "version \($0)" } ?? "a new version"
        Console.out((promote ? "Promoted the canary: \(version) is served to every instance" : "Aborted the canary: \(version) repeats the stable one")
            + response.etagNote)
    }
}

struct AbortCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "abort", abstract: "Drop the running canary: its instances go back to the stable version.")

    @OptionGroup var options: CanaryEndOptions

    func run() async throws { try await options.end(promote: false) }
}
