import Foundation
import TestSupport
import Testing

/// `rcctl principals`, `members` and `tokens` end to end: the real binary against the daemon.
@Suite(.timeLimit(.minutes(2))) final class RCCtlAccessTests {
    let temporary: TemporaryDirectory
    let daemon: DaemonProcess

    init() throws {
        temporary = try TemporaryDirectory("rcctl-access")
        daemon = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("data").path, workers: 1)
    }

    func rcctl(_ arguments: String..., token: String? = RCCtlProcess.token) throws -> RCCtlResult {
        try RCCtlProcess.run(arguments, port: daemon.port, token: token, stdin: nil)
    }

    @Test func aServiceAccountWithARoleAndATokenThenRevoked() throws {
        let added = try rcctl("principals", "--add", "Release Bot")
        #expect(added.status == 0 && added.stdout == "Added svc-release-bot\n", "\(added.stderr)")
        #expect(try rcctl("principals").stdout.contains("svc-release-bot\tservice\tRelease Bot\n"))
        #expect(try rcctl("members", "svc-release-bot", "viewer").stdout == "svc-release-bot is viewer\n")
        #expect(try rcctl("members").stdout == "svc-release-bot\tviewer\n")

        let made = try rcctl("tokens", "--create", "ci", "--for", "svc-release-bot", "--json").json()
        let id = try #require(made["id"] as? String)
        let secret = try #require(made["token"] as? String)
        #expect(try rcctl("tokens").stdout.contains("\(id)\tsvc-release-bot\tci\tactive\n"))
        // The token reads, and cannot publish: the refusal names the role.
        #expect(try rcctl("get", token: secret).status == 0)
        let refused = try rcctl("members", "svc-release-bot", "admin", token: secret)
        #expect(refused.status == 1 && refused.stderr.contains("needs the role 'admin'"), "\(refused.stderr)")

        #expect(try rcctl("tokens", "--revoke", id).stdout == "Revoked \(id)\n")
        #expect(try rcctl("get", token: secret).status == 1)
        #expect(try rcctl("members", "svc-release-bot", "none").stdout == "svc-release-bot holds no role on the project\n")
        #expect(try rcctl("members").stdout.isEmpty)
    }

    @Test func badArgumentsAreUsageErrors() throws {
        #expect(try rcctl("members", "svc-x").status == 2)
        #expect(try rcctl("tokens", "--create", "x").status == 2)
        let unknown = try rcctl("members", "svc-nobody", "viewer")
        #expect(unknown.status == 1 && unknown.stderr.contains("No principal 'svc-nobody'"), "\(unknown.stderr)")
    }

    @Test func keysAndTheAuditLog() throws {
        let made = try rcctl("keys", "--create", "android")
        #expect(made.status == 0 && made.stdout.hasPrefix("Key "), "\(made.stderr)")
        let id = String(made.stdout.dropFirst(4).prefix(12))
        #expect(try rcctl("keys").stdout.hasPrefix("\(id)\tandroid\t"))
        #expect(try rcctl("keys", "--revoke", id).stdout == "Revoked \(id)\n")
        #expect(try rcctl("keys").stdout.isEmpty)

        let log = try rcctl("audit")
        #expect(log.status == 0, "\(log.stderr)")
        let lines = log.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains("\ttoken:quick-start\tapiKey.revoke\texample-project \(id)\tok"), "\(log.stdout)")
        #expect(lines[1].contains("\tapiKey.create\texample-project android\tok"), "\(log.stdout)")
        let csv = try rcctl("audit", "--csv", "--action", "apiKey.create")
        #expect(csv.stdout.split(separator: "\r\n").count == 2 && csv.stdout.contains(",CLI,"), "\(csv.stdout)")
    }

    @Test func aTokenLimitedToARole() throws {
        #expect(try rcctl("principals", "--add", "Ops", "--owner").status == 0)
        let made = try rcctl("tokens", "--create", "ro", "--for", "svc-ops", "--role", "example-project=viewer", "--json").json()
        #expect((made["roles"] as? [String: String]) == ["example-project": "viewer"])
        let secret = try #require(made["token"] as? String)
        #expect(try rcctl("get", token: secret).status == 0)
        #expect(try rcctl("tokens", token: secret).status == 1, "an owner's token limited to a project is no owner")
        #expect(try rcctl("tokens", "--create", "x", "--for", "svc-ops", "--role", "viewer").status == 2)
    }
}
