import Foundation
import TestSupport
import Testing

/// `rcctl usage` and `rcctl stale` end to end: the real binary against the daemon.
@Suite(.timeLimit(.minutes(2))) final class RCCtlUsageTests {
    let temporary: TemporaryDirectory
    let daemon: DaemonProcess

    init() throws {
        temporary = try TemporaryDirectory("rcctl-usage")
        var config = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "config/remote-config.json"))) as! [String: Any]
        config["usage"] = ["flushIntervalSeconds": 0.1]
        let path = temporary.url.appendingPathComponent("config.json").path
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
        daemon = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("data").path, workers: 1, config: path,
                                   extraEnvironment: UsageDaemonTests.debugLog)
    }

    func rcctl(_ arguments: String..., stdin: String? = nil) throws -> RCCtlResult {
        try RCCtlProcess.run(arguments, port: daemon.port, token: RCCtlProcess.token, stdin: stdin.map { Data($0.utf8) })
    }

    @Test func usageStaleAndPermanentThroughTheCLI() throws {
        #expect(try rcctl("publish", "-", "--force", stdin: Templates.basic).status == 0)
        try UsageDaemonTests.fetch(daemon.port, count: 6)
        _ = try daemon.log(within: 10, "6 answers written") { UsageDaemonTests.answersWritten(in: $0) >= 6 }
        let usage = try rcctl("usage", "--window", "hour")
        let lines = usage.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("KEY") == true && lines.count == 4, "\(usage.stdout)\(usage.stderr)")
        let welcome = try #require(lines.first { $0.hasPrefix("welcome") })
        #expect(welcome.contains("condition:ios 2, condition:pro 2, default 2") && welcome.contains("2.0 4, 1.0 2")
            && welcome.contains("android 4, ios 2"), "\(welcome)")
        #expect(try rcctl("usage", "local_only", "--window", "day").stdout.contains("inAppDefault 6"))
        let json = try rcctl("usage", "--json").json()
        #expect((json["parameters"] as? [[String: Any]])?.count == 3)

        let stale = try rcctl("stale")
        #expect(stale.status == 0 && stale.stdout.contains("Stale after 30 days") && stale.stdout.contains("  none"), "\(stale.stdout)")
        #expect(try rcctl("stale", "--fail-on-stale").status == 0)
        #expect(try rcctl("stale", "mark-permanent", "limit").stdout == "Marked limit\n")
        #expect(try rcctl("stale", "mark-permanent", "limit").stdout == "Nothing changed\n")
        #expect(try rcctl("stale").stdout.contains("Permanent (never stale): limit"))
        let missing = try rcctl("stale", "mark-permanent", "ghost")
        #expect(missing.status == 1 && missing.stderr.contains("not in the template"), "\(missing.stderr)")
        #expect(try rcctl("stale", "unmark-permanent", "limit").stdout == "Unmarked limit\n")
        #expect(try rcctl("stale", "days").stdout == "Stale after 30 days\n")
        #expect(try rcctl("stale", "days", "7").stdout == "Stale after 7 days\n")
        #expect(try rcctl("stale", "days", "0").status == 1)
        #expect(try rcctl("usage", "--window", "year").status == 2)
    }
}
