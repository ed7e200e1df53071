import ArgumentParser
import Foundation

/// The admin command line for the Remote Config server.
struct RCCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rcctl",
        abstract: "Manage Remote Config templates, and who may change them, on a Remote Config server.",
        discussion: """
            Connection options (--url, --token, --project, --json) follow the subcommand. Commands on a template \
            take --env (or RCS_ENV) for an environment's template other than production's (docs/environments.md).

            Exit codes: 0 ok, 1 the server answered with an error, 2 usage or input file error, \
            3 the server could not be reached.
            """,
        subcommands: [
            GetCommand.self, PublishCommand.self, VersionsCommand.self, RollbackCommand.self, DiffCommand.self,
            EvaluateCommand.self, WatchCommand.self, ImportCommand.self, ExportCommand.self,
            CanaryCommand.self, PromoteCommand.self, AbortCommand.self,
            EnvironmentsCommand.self, CompareCommand.self,
            PrincipalsCommand.self, MembersCommand.self, TokensCommand.self, KeysCommand.self, AuditCommand.self, ChangesCommand.self,
            SessionsCommand.self,
            WebhooksCommand.self,
            RefsCommand.self, UsageCommand.self, StaleCommand.self,
        ]
    )

    /// Parses the arguments, runs the command and exits with the documented codes.
    static func runAndExit() async -> Never {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Foundation.exit(0)
        } catch let error as CLIError {
            Console.error("rcctl: \(error.message)")
            Foundation.exit(error.exitCode)
        } catch {
            // Argument parsing, --help and ValidationError.
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { Console.out(message) }
                Foundation.exit(0)
            }
            Console.error(message)
            Foundation.exit(CLIError.usageExitCode)
        }
    }
}
