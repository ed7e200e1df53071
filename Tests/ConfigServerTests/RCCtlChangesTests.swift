import Foundation
import TestSupport
import Testing

/// `rcctl changes` end to end: the real binary against the daemon.
@Suite(.timeLimit(.minutes(2))) final class RCCtlChangesTests {
    let temporary: TemporaryDirectory
    let daemon: DaemonProcess

    init() throws {
        temporary = try TemporaryDirectory("rcctl-changes")
        daemon = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("data").path, workers: 1)
    }

    func rcctl(_ arguments: String..., token: String? = RCCtlProcess.token, stdin: String? = nil) throws -> RCCtlResult {
        try RCCtlProcess.run(arguments, port: daemon.port, token: token, stdin: stdin.map { Data($0.utf8) })
    }

    @Test func proposeApproveAndApplyThroughTheCLI() throws {
        #expect(try rcctl("publish", "-", "--force", stdin: Templates.single("v1")).status == 0)
        let policy = try rcctl("changes", "policy", "--approvals", "1", "--self-approval")
        #expect(policy.stdout == "requiredApprovals 1, allowSelfApproval true, editorsMayPublish false\n", "\(policy.stderr)")
        let refused = try rcctl("publish", "-", "--force", stdin: Templates.single("direct"))
        #expect(refused.status == 1 && refused.stderr.contains("[APPROVAL_REQUIRED]"), "\(refused.stderr)")

        let proposed = try rcctl("changes", "propose", "-", "--description", "turn it on", stdin: Templates.single("v2"))
        #expect(proposed.status == 0 && proposed.stdout.hasPrefix("Change request #1\topen\t0/1 approvals"), "\(proposed.stdout)\(proposed.stderr)")
        #expect(try rcctl("changes", "approve", "1", "--comment", "fine").stdout.hasPrefix("Change request #1\tapproved\t1/1"))
        #expect(try rcctl("changes", "list").stdout.hasPrefix("#1\tapproved"))
        let applied = try rcctl("changes", "apply", "1")
        #expect(applied.stdout == "Applied change request #1: version 2\n", "\(applied.stdout)\(applied.stderr)")
        #expect(try rcctl("changes", "list", "--status", "applied").stdout.contains("version 2"))
        let shown = try rcctl("changes", "show", "1")
        #expect(shown.stdout.contains("\"status\" : \"applied\""), "\(shown.stdout)")
        let unknown = try rcctl("changes", "approve", "99")
        #expect(unknown.status == 1 && unknown.stderr.contains("No change request 99"), "\(unknown.stderr)")
    }
}
