import Foundation
import Glibc
import PostgresTestSupport
import TestSupport
import Testing

/// What clients read, counted by the daemon as users run it: several workers, and several nodes on
/// PostgreSQL, take the fetches, each writes its own counts, and the store's sums are exact,
/// before and after restarts.
@Suite(.serialized, .timeLimit(.minutes(3))) final class UsageDaemonTests {
    let temporary: TemporaryDirectory
    var dataDir: String { temporary.url.appendingPathComponent("data").path }

    init() throws {
        temporary = try TemporaryDirectory("rcs-usage-daemon")
    }

    /// The shipped config with no throttle and the workers writing their counts every
    /// `flushSeconds`.
    func config(flushSeconds: Double) throws -> String {
        var config = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "config/remote-config.json"))) as! [String: Any]
        config["fetch"] = ["requireAPIKey": true, "throttleBurst": 0, "throttlePerMinute": 60]
        config["usage"] = ["flushIntervalSeconds": flushSeconds]
        let path = temporary.url.appendingPathComponent("config-\(flushSeconds).json").path
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `count` fetches on new connections (spread over the workers by the kernel), a third each
    /// from Android 1.0, iOS 2.0 and Android 2.0 with the `pro` plan.
    static func fetch(_ port: Int, count: Int) throws {
        for index in 0..<count {
            let (platform, version, signals) = [("android", "1.0", "{}"), ("ios", "2.0", "{}"), ("android", "2.0", #"{"plan":"pro"}"#)][index % 3]
            let client = try TestClient(port: port)
            try client.send(TestClient.format(
                "POST", "/v1/projects/123456789012/namespaces/firebase:fetch", headers: [("X-Goog-Api-Key", "example-api-key")],
                body: Array("{\"appInstanceId\":\"i-\(index)\",\"appId\":\"1:123456789012:\(platform):ab\",\"appVersion\":\"\(version)\",\"customSignals\":\(signals)}".utf8)))
            #expect(try client.readResponse().status == 200)
        }
    }

    /// `welcome`'s counts in the month window.
    static func welcome(_ port: Int) throws -> [String: Any] {
        let report = try DaemonTests.admin(port, "GET", "/v1/projects/example-project/remoteConfig:usage").json()
        let parameters = try #require(report["parameters"] as? [[String: Any]])
        let welcome = try #require(parameters.first { $0["key"] as? String == "welcome" })
        return try #require((welcome["windows"] as? [String: Any])?["month"] as? [String: Any])
    }

    /// The answers `daemon`'s workers logged as written to the store so far (`usage counts
    /// written`, a debug line: the daemons here log at debug level).
    static func answersWritten(in log: String) -> Int {
        log.split(separator: "\n").filter { $0.contains("usage counts written") }.reduce(0) { sum, line in
            guard let range = line.range(of: "answers=") else { return sum }
            return sum + (Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0)
        }
    }

    /// Awaits each daemon's log saying its workers wrote the answers it took, reads the report
    /// through `port`, lets a few more writes pass (`settle`) and reads it again: the sum must be
    /// `count` both times, never more.
    static func expectCounted(_ count: Int, port: Int, written: [(daemon: DaemonProcess, answers: Int)],
                              settle: Double) throws -> [String: Any] {
        for (daemon, answers) in written {
            _ = try daemon.log(within: 20, "\(answers) answers written") { answersWritten(in: $0) >= answers }
        }
        #expect(try welcome(port)["evaluations"] as? Int == count)
        letTimePass(seconds: settle)
        let counts = try welcome(port)
        #expect(counts["evaluations"] as? Int == count)
        return counts
    }

    static let debugLog = ["RCS_LOG_LEVEL": "debug"]

    @Test func countsFromEveryWorkerAddUpExactlyAndSurviveRestarts() throws {
        var daemon = try DaemonProcess(dataDir: dataDir, workers: 3, config: try config(flushSeconds: 0.2), extraEnvironment: Self.debugLog)
        #expect(try DaemonTests.admin(daemon.port, "PUT", "/v1/projects/example-project/remoteConfig", headers: [("If-Match", "*")],
                                      body: Templates.basic).status == 200)
        try Self.fetch(daemon.port, count: 60)
        let counts = try Self.expectCounted(60, port: daemon.port, written: [(daemon, 60)], settle: 1)
        #expect(counts["bySource"] as? [String: Int] == ["default": 20, "condition:ios": 20, "condition:pro": 20])
        #expect(counts["byAppVersion"] as? [String: Int] == ["1.0": 20, "2.0": 40])
        #expect(counts["byPlatform"] as? [String: Int] == ["android": 40, "ios": 20])
        let served = WorkerGroupTests.sum("rcs_fetches_total", in: try DaemonTests.admin(daemon.port, "GET", "/metrics").text)
        #expect(served.total == 60 && served.workers.count >= 2, "the fetches were spread over the workers: \(served)")

        // A graceful stop writes what each worker counted since its last write: with writes an
        // hour apart, only the stop's writes carry these.
        daemon.kill(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        daemon = try DaemonProcess(dataDir: dataDir, workers: 3, config: try config(flushSeconds: 3_600))
        #expect(try Self.welcome(daemon.port)["evaluations"] as? Int == 60, "counts outlive a restart")
        try Self.fetch(daemon.port, count: 30)
        daemon.kill(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        daemon = try DaemonProcess(dataDir: dataDir, workers: 2, config: try config(flushSeconds: 3_600))
        let after = try Self.welcome(daemon.port)
        #expect(after["evaluations"] as? Int == 90)
        #expect(after["bySource"] as? [String: Int] == ["default": 30, "condition:ios": 30, "condition:pro": 30])
        daemon.kill(SIGTERM)
        _ = daemon.waitForExit()
    }

    @Test func countsFromEveryNodeOnPostgreSQLAddUpExactly() throws {
        let database = try TestDatabase()
        let config = try config(flushSeconds: 0.2)
        func node(_ index: Int) throws -> DaemonProcess {
            try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node\(index)").path, workers: 2, config: config,
                              extraEnvironment: Self.debugLog.merging(["RCS_DATABASE_URL": database.url]) { $1 })
        }
        var nodes = try [node(1), node(2), node(3)]
        #expect(try DaemonTests.admin(nodes[0].port, "PUT", "/v1/projects/example-project/remoteConfig", headers: [("If-Match", "*")],
                                      body: Templates.basic).status == 200)
        for node in nodes { try Self.fetch(node.port, count: 30) }
        let counts = try Self.expectCounted(90, port: nodes[1].port, written: nodes.map { ($0, 30) }, settle: 1)
        #expect(counts["bySource"] as? [String: Int] == ["default": 30, "condition:ios": 30, "condition:pro": 30])
        for node in [nodes[0], nodes[2]] {
            #expect(NSDictionary(dictionary: try Self.welcome(node.port)).isEqual(to: counts), "every node reads the same sums")
        }
        nodes[0].kill(SIGTERM)
        #expect(nodes[0].waitForExit() == 0)
        nodes[0] = try node(1)
        try Self.fetch(nodes[0].port, count: 3)
        _ = try Self.expectCounted(93, port: nodes[1].port, written: [(nodes[0], 3)], settle: 0.5)
        for node in nodes {
            node.kill(SIGTERM)
            _ = node.waitForExit()
        }
    }
}
