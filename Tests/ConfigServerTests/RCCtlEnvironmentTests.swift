import Foundation
import TestSupport
import Testing

/// `rcctl envs`, `--env`, `keys --env`, `compare` and `promote --from` end to end: the real binary
/// against the daemon (docs/environments.md).
@Suite(.timeLimit(.minutes(2))) final class RCCtlEnvironmentTests {
    let temporary: TemporaryDirectory
    let daemon: DaemonProcess

    init() throws {
        temporary = try TemporaryDirectory("rcctl-environments")
        daemon = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("data").path, workers: 1)
    }

    func rcctl(_ arguments: String..., token: String? = RCCtlProcess.token, stdin: String? = nil) throws -> RCCtlResult {
        try RCCtlProcess.run(arguments, port: daemon.port, token: token, stdin: stdin.map { Data($0.utf8) })
    }

    /// Runs rcctl and expects it to succeed.
    @discardableResult
    func succeeds(_ arguments: String..., stdin: String? = nil) throws -> RCCtlResult {
        let result = try RCCtlProcess.run(arguments, port: daemon.port, stdin: stdin.map { Data($0.utf8) })
        #expect(result.status == 0, "rcctl \(arguments.joined(separator: " ")): \(result.stderr)")
        return result
    }

    @Test func environmentsAreCreatedListedRenamedGivenASoakAndDeleted() throws {
        #expect(try succeeds("envs", "create", "staging").stdout == "Created staging (Staging)\n")
        #expect(try succeeds("envs", "create", "development", "--name", "Dev").stdout == "Created development (Dev)\n")
        let listed = try succeeds("envs").stdout.split(separator: "\n")
        #expect(listed.first?.hasPrefix("ID           NAME        SOAK  CREATED") == true, "\(listed)")
        #expect(listed.dropFirst().map { $0.prefix { $0 != " " } } == ["staging", "development", "production"], "production last")
        #expect(try succeeds("envs", "rename", "staging", "Pre-production").stdout == "Renamed staging to Pre-production\n")
        #expect(try succeeds("envs", "soak", "production", "3600").stdout
            == "production takes only versions active for 3600 s where they come from\n")
        let json = try succeeds("envs", "list", "--json").json()
        let environments = try #require(json["environments"] as? [[String: Any]])
        #expect(environments.map { $0["displayName"] as? String } == ["Pre-production", "Dev", "Production"])
        #expect(environments.last?["soakSeconds"] as? Int == 3600)

        #expect(try succeeds("envs", "delete", "development").stdout == "Deleted development\n")
        #expect(try succeeds("envs").stdout.split(separator: "\n").count == 3)
        let again = try rcctl("envs", "create", "staging")
        #expect(again.status == 1 && again.stderr.contains("ALREADY_EXISTS"), "\(again.stderr)")
        let production = try rcctl("envs", "delete", "production")
        #expect(production.status == 1 && production.stderr.contains("ENVIRONMENT_IN_USE"), "\(production.stderr)")
        #expect(try rcctl("envs", "create", "Not An Id").status == 1)
        #expect(try rcctl("envs", "soak", "staging", "-1").status == 2)
    }
}
