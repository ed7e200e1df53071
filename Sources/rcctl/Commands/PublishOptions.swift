import ArgumentParser
import ConfigClient
import Foundation

/// How a template is published: against a known ETag, forced, or validated only.
struct PublishOptions: ParsableArguments {
    @Option(help: "ETag the file was based on (If-Match); fetched from the server when omitted.")
    var etag: String?

    @Flag(help: "Publish over whatever version is current (If-Match: *).")
    var force = false

    @Flag(help: "Only validate the template; nothing is published.")
    var validateOnly = false

    @Option(name: .customLong("canary"), help: "Publish as a canary to this percent of the instances (then `rcctl canary`, `promote` or `abort`).")
    var canaryPercent: Double?

    func validate() throws {
        if etag != nil, force { throw ValidationError("--etag and --force exclude each other") }
        if let canaryPercent, !(canaryPercent > 0 && canaryPercent <= 100) {
            throw ValidationError("--canary takes a percent above 0 and at most 100")
        }
    }

    /// Publishes `template` and prints the outcome.
    func publish(_ template: Data, global: TemplateOptions) async throws(CLIError) {
        let client = global.adminClient()
        let ifMatch: String
        if force {
            ifMatch = "*"
        } else if let etag {
            ifMatch = etag
        } else {
            let current = try await checked { () async throws(ConfigClientError) in try await client.template() }
            guard let etag = current.etag else {
                throw CLIError(message: "the server sent no ETag for the current template; pass --etag or --force", exitCode: CLIError.serverExitCode)
            }
            ifMatch = etag
        }
        let response: AdminClient.Response
        do {
            response = try await client.publish(template, ifMatch: ifMatch, validateOnly: validateOnly, canaryPercent: canaryPercent)
        } catch {
            throw Self.explained(error, ifMatch: ifMatch, environment: global.environment)
        }
        if global.json { return Console.write(response.body) }
        // Production's lines are as they were before environments.
        let published = "Published \(response.templateVersionNumber.map { "version \($0)" } ?? "the template")"
            + (global.environment.map { " to \($0)" } ?? "")
        if validateOnly {
            Console.out("Template is valid (nothing published)")
        } else if let canaryPercent {
            Console.out("\(published) as a canary to \(canaryPercent) % of the instances\(response.etagNote)")
        } else {
            Console.out("\(published)\(response.etagNote)")
        }
    }

    /// A stale ETag is the usual reason a publish is refused; say what to do about it.
    static func explained(_ error: ConfigClientError, ifMatch: String, environment: String?) -> CLIError {
        var failure = CLIError(error)
        if case .server(let server) = error, server.status == "FAILED_PRECONDITION" {
            let get = "rcctl get" + (environment.map { " --env \($0)" } ?? "")
            failure.message += "\nrcctl: the template changed since ETag \(ifMatch); run `\(get)` for the current ETag, or publish with --force"
        }
        return failure
    }
}
