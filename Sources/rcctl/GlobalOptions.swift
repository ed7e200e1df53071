import ArgumentParser
import ConfigClient
import Foundation

/// Connection and output options shared by every subcommand.
struct GlobalOptions: ParsableArguments {
    @Option(help: "Server base URL (env RCS_URL, default http://127.0.0.1:8080).")
    var url: String?

    @Option(help: "Admin bearer token (env RCS_TOKEN).")
    var token: String?

    @Option(help: "Project id or number (env RCS_PROJECT, default example-project).")
    var project: String?

    @Flag(help: "Print the server's JSON instead of a summary.")
    var json = false

    private var environment: [String: String] { ProcessInfo.processInfo.environment }

    var resolvedURL: String { url ?? environment["RCS_URL"] ?? "http://127.0.0.1:8080" }
    var resolvedProject: String { project ?? environment["RCS_PROJECT"] ?? "example-project" }
    var resolvedToken: String? { token ?? environment["RCS_TOKEN"] }

    /// A client for the project; its template calls work on `environment` (production when `nil`).
    func adminClient(environment: String? = nil) -> AdminClient {
        AdminClient(baseURL: resolvedURL, project: resolvedProject, environment: environment, token: resolvedToken, origin: "CLI")
    }

    /// Runs `call` and prints its JSON (`--json`) or what `summary` makes of it (nothing when empty).
    func run<Answer: Decodable>(
        _ call: @escaping (AdminClient) async throws(ConfigClientError) -> AdminClient.Response,
        as _: Answer.Type, summary: (Answer) -> String
    ) async throws {
        let client = adminClient()
        let response = try await checked { () async throws(ConfigClientError) in try await call(client) }
        if json { return Console.write(response.body) }
        let text = summary(try await checked { () async throws(ConfigClientError) in try response.decode(Answer.self) })
        if !text.isEmpty { Console.out(text) }
    }
}
