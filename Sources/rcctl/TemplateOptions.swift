import ArgumentParser
import ConfigClient
import Foundation

/// What every command on a template takes: the connection options and the environment whose
/// template it works on (docs/environments.md). Its client puts every template call under
/// `/v1/projects/{p}/environments/{env}/…`, and production's on the Firebase paths as before.
struct TemplateOptions: ParsableArguments {
    @OptionGroup var connection: GlobalOptions

    @Option(name: .customLong("env"), help: "The environment whose template to work on (env RCS_ENV, default production).")
    var env: String?

    /// `--env`, else `RCS_ENV`; `nil` for production.
    var environment: String? { Self.chosen(env).flatMap { $0 == Self.production ? nil : $0 } }

    /// `flag`, else `RCS_ENV`, as named (`production` too); `nil` when neither names one.
    static func chosen(_ flag: String?) -> String? {
        let named = flag ?? ProcessInfo.processInfo.environment["RCS_ENV"]
        return named?.isEmpty == false ? named : nil
    }

    /// The environment's id as people read it.
    var environmentName: String { environment ?? Self.production }

    static let production = "production"

    var json: Bool { connection.json }

    func adminClient() -> AdminClient { connection.adminClient(environment: environment) }
}
