import ArgumentParser
import ConfigClient
import Foundation

/// `rcctl promote`: the running canary to every instance, or with `--from`, one environment's
/// template into another's (docs/environments.md, "Compare and promote").
struct PromoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "promote",
        abstract: "Make the running canary the version for every instance; with --from and --to, promote between environments.",
        discussion: """
            `rcctl promote --from staging --to production` makes a new version of production's template from \
            staging's active version (or --version N): the whole template, or with --keys and --conditions only \
            those parameters and conditions (with the conditions the parameters use). The new version records \
            where it came from. Where --to's change policy asks approvals, a change request is made instead and \
            printed (exit 0; --json has it as `changeRequest`).

            A refusal exits 1 with the server's message: a soak rule not met ([SOAK_NOT_MET]), a role missing, \
            --to's template changed since --etag ([VERSION_MISMATCH]). With --from, --etag names the version \
            of --to's template the promotion is based on, so a repeated run is refused instead of promoting twice.
            """
    )

    @Option(help: "The environment to promote from (instead of promoting the canary).")
    var from: String?

    @Option(help: "The environment to promote into (with --from).")
    var to: String?

    @Option(name: .customLong("keys"), help: "Only these parameters (comma-separated or repeated).")
    var keys: [String] = []

    @Option(help: "Only these conditions (comma-separated or repeated).")
    var conditions: [String] = []

    @Option(name: .customLong("version"), help: "The version of --from to promote (default: its active one).")
    var versionNumber: Int64?

    @Option(help: "The new version's description (default: \"Promoted from ENV version N\").")
    var description: String?

    @Option(help: "The template: firebase (client, the default) or firebase-server (with --from).")
    var namespace: String?

    @OptionGroup var options: CanaryEndOptions

    func validate() throws {
        guard from != nil else {
            if to != nil || !keys.isEmpty || !conditions.isEmpty || versionNumber != nil || description != nil || namespace != nil {
                throw ValidationError("--to, --keys, --conditions, --version, --description and --namespace promote between "
                    + "environments: name the one to promote from with --from")
            }
            return
        }
        if to == nil { throw ValidationError("name the environment to promote into with --to") }
        // An empty list would promote the whole template: never what was asked.
        if !keys.isEmpty, Self.names(keys) == nil { throw ValidationError("--keys names no parameter") }
        if !conditions.isEmpty, Self.names(conditions) == nil { throw ValidationError("--conditions names no condition") }
        if options.global.env != nil { throw ValidationError("--env names a canary's environment; between environments, use --from and --to") }
        if let versionNumber, versionNumber <= 0 { throw ValidationError("--version must be a positive version number") }
    }

    func run() async throws {
        guard let from, let to else { return try await options.end(promote: true) }
        let promotion = AdminClient.Promotion(from: from, version: versionNumber, parameters: Self.names(keys),
                                              conditions: Self.names(conditions), description: description)
        let (namespace, etag) = (namespace ?? "firebase", options.etag)
        let client = options.global.connection.adminClient(environment: to)
        let response = try await checked { () async throws(ConfigClientError) in
            try await client.promote(promotion, namespace: namespace, ifMatch: etag)
        }
        if options.global.json { return Console.write(response.body) }
        let answer = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        let source = (answer["promotedFrom"] as? String).map { $0.replacingOccurrences(of: "/", with: " version ") } ?? from
        if let request = answer["changeRequest"] as? [String: Any] {
            let id = request["id"] as? String ?? "?"
            let approvals = ((request["approvals"] as? [Any])?.count ?? 0, request["requiredApprovals"] as? Int ?? 0)
            let namespaceOption = namespace == "firebase" ? "" : " --namespace \(namespace)"
            return Console.out("Promoting \(source) into \(to) needs approval: change request #\(id), \(approvals.0) of "
                + "\(approvals.1) approvals (rcctl changes show \(id) --env \(to)\(namespaceOption))")
        }
        let version = ((answer["template"] as? [String: Any])?["version"] as? [String: Any])?["versionNumber"] as? String
        Console.out("Promoted \(source) to \(to): version \(version ?? "?")\(response.etagNote)")
    }

    /// `a,b` and repeated options as one list; `nil` when none is named.
    private static func names(_ values: [String]) -> [String]? {
        let names = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return names.isEmpty ? nil : names
    }
}
