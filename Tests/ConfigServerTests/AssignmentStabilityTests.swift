import ConfigCore
import Foundation
import Glibc
import TestSupport
import Testing

/// An instance's rollout is the same on every worker and after a restart: each fetch goes on a
/// new connection, so the workers of the daemon take turns, and the second daemon reads the
/// version the first one stored.
@Suite(.serialized, .timeLimit(.minutes(2))) final class AssignmentStabilityTests {
    let temporary: TemporaryDirectory
    var dataDir: String { temporary.url.appendingPathComponent("data").path }

    init() throws {
        temporary = try TemporaryDirectory("rcs-assign")
    }

    static let template = """
        {"conditions": [{"name": "all", "expression": "true"}],
         "parameters": {"k": {"defaultValue": {"value": "out"}, "conditionalValues": {
           "all": {"rolloutValue": {"rolloutId": "stable-rollout", "value": "in", "percent": 30}}}}}}
        """

    /// `k` of every instance, one fetch per instance on a new connection.
    static func values(_ port: Int, _ instances: [String]) throws -> [String] {
        try instances.map { try ReadYourWritesTests.fetch(port, instance: $0).value ?? "-" }
    }

    @Test func assignmentsHoldAcrossWorkersAndRestarts() throws {
        let instances = (0..<200).map { "stable-\($0)" }
        let expected = instances.map {
            InstanceAssignment.isIncluded(id: "stable-rollout", microPercent: 30_000_000, appInstanceId: $0) ? "in" : "out"
        }
        var daemon = try DaemonProcess(dataDir: dataDir, workers: 3)
        let response = try DaemonTests.admin(daemon.port, "PUT", ReadYourWritesTests.templatePath, headers: [("If-Match", "*")], body: Self.template)
        #expect(response.status == 200, "\(response.text)")
        for _ in 0..<3 {
            #expect(try Self.values(daemon.port, instances) == expected)
        }
        daemon.kill(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        daemon = try DaemonProcess(dataDir: dataDir, workers: 2)
        #expect(try Self.values(daemon.port, instances) == expected)
        let share = expected.filter { $0 == "in" }.count
        #expect((40...80).contains(share), "30 % of 200 instances, got \(share)")
    }
}
