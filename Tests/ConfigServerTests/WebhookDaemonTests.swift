import ConfigStore
import Dispatch
import Foundation
import Glibc
import PostgresStore
import PostgresTestSupport
import TestSupport
import Testing

/// Webhooks through the real daemon: an event survives a kill -9 between its commit and its
/// delivery, and on three nodes sharing PostgreSQL each event is sent once.
@Suite(.serialized, .timeLimit(.minutes(3))) final class WebhookDaemonTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory("rcs-webhooks")
    }

    /// A config file: the quick start's token and project, webhooks to loopback, fast retries.
    func configFile() throws -> String {
        let path = temporary.url.appendingPathComponent("webhooks.json").path
        try Data("""
            {"adminTokens": [{"name": "quick-start", "token": "dev-admin-token"}],
             "projects": [{"id": "example-project", "number": "123456789012", "apiKeys": ["example-api-key"]}],
             "webhooks": {"allowPrivateAddresses": true, "timeoutSeconds": 1, "leaseSeconds": 6, "retryBaseSeconds": 0.1,
                          "retryMaxDelaySeconds": 0.5, "pollIntervalSeconds": 0.2}}
            """.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func createEndpoint(_ port: Int, url: String) throws -> String {
        let response = try DaemonTests.admin(port, "POST", "/v1/projects/example-project/webhooks",
                                             body: #"{"url":"\#(url)","events":["template.publish"]}"#)
        #expect(response.status == 200, "\(response.text)")
        return try #require(try response.json()["id"] as? String)
    }

    /// Stops `daemons` (SIGTERM), then reads `endpoint`'s delivery log from `store`: a worker
    /// stops once the attempts under way are recorded, so every answer the receiver gave is in it.
    static func deliveryLog(stopping daemons: [DaemonProcess], endpoint: String,
                            store: () throws -> any ConfigDatabase) throws -> [WebhookDelivery] {
        for daemon in daemons { daemon.kill(SIGTERM) }
        for daemon in daemons { #expect(daemon.waitForExit() == 0) }
        let store = try store()
        defer { store.close() }
        return try store.webhooks.deliveries(endpointID: endpoint, pageSize: 1_000, pageToken: nil).deliveries
    }

    @Test func anEventCommittedBeforeAKillDashNineIsDeliveredAfterTheRestart() throws {
        let dataDir = temporary.url.appendingPathComponent("data").path
        let config = try configFile()
        // The first attempt reaches a receiver that never answers; the server dies meanwhile.
        let release = DispatchSemaphore(value: 0)
        let receiver = try WebhookReceiver { index in
            if index == 0 { release.wait() }
            return index == 0 ? nil : 200
        }
        defer { release.signal() }
        let daemon = try DaemonProcess(dataDir: dataDir, workers: 1, config: config)
        let endpoint = try Self.createEndpoint(daemon.port, url: receiver.url)
        #expect(try MultiNodeTests.publish(daemon.port, "one").status == 200)
        let first = try #require(try receiver.requests(atLeast: 1).first)
        daemon.kill(SIGKILL)
        _ = daemon.waitForExit()

        let restarted = try DaemonProcess(dataDir: dataDir, workers: 1, config: config)
        // Once the dead worker's lease ends, the restarted server sends the same message.
        let again = try #require(try receiver.requests(atLeast: 2, within: 30).last)
        #expect(again.id == first.id && again.body == first.body)
        let log = try Self.deliveryLog(stopping: [restarted], endpoint: endpoint) {
            try SQLiteConfigDatabase(databasePath: URL(fileURLWithPath: dataDir).appendingPathComponent("remote-config.sqlite").path,
                                    migrationsDirectory: PostgresTestServer.repository.appendingPathComponent("migrations/sqlite"))
        }
        #expect(log.count == 1 && log.first?.state == .delivered, "\(log)")
        #expect(log.first?.attempts.map(\.status) == [200], "the dead worker's attempt was never answered: \(log)")
    }

    @Test func onThreeNodesEachEventIsSentOnce() throws {
        let database = try TestDatabase()
        let config = try configFile()
        let nodes = try (1...3).map { index in
            try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node\(index)").path, workers: 2, config: config,
                              extraEnvironment: ["RCS_DATABASE_URL": database.url])
        }
        let receiver = try WebhookReceiver()
        let endpoint = try Self.createEndpoint(nodes[0].port, url: receiver.url)
        let publishes = 30
        for index in 0..<publishes {
            #expect(try MultiNodeTests.publish(nodes[index % nodes.count].port, "v\(index)").status == 200)
        }
        _ = try receiver.requests(atLeast: publishes)
        let log = try Self.deliveryLog(stopping: nodes, endpoint: endpoint) {
            try PostgresConfigDatabase(url: database.url, migrationsDirectory: PostgresTestServer.migrations)
        }
        let perID = receiver.attemptsPerID()
        #expect(perID.count == publishes && perID.values.allSatisfy { $0 == 1 }, "attempts per event: \(perID)")
        #expect(log.count == publishes && log.allSatisfy { $0.state == .delivered && $0.attemptCount == 1 }, "\(log)")
        #expect(Set(log.map(\.eventID)) == Set(perID.keys))
    }

    @Test func rcctlManagesEndpointsAndTheirDeliveries() throws {
        let daemon = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("rcctl").path, workers: 1, config: try configFile())
        let receiver = try WebhookReceiver()
        func rcctl(_ arguments: String...) throws -> RCCtlResult {
            try RCCtlProcess.run(arguments, port: daemon.port, token: RCCtlProcess.token, stdin: nil)
        }
        let made = try rcctl("webhooks", "create", receiver.url, "--event", "test", "--event", "template.publish", "--description", "CI")
        #expect(made.status == 0 && made.stdout.contains("(secret shown once):\nwhsec_"), "\(made.stderr)")
        let id = try #require(made.stdout.split(separator: " ").dropFirst().first.map(String.init))
        #expect(try rcctl("webhooks", "list").stdout == "\(id)\t\(receiver.url)\ttest,template.publish\tCI\n")
        let tested = try rcctl("webhooks", "test", id)
        #expect(tested.status == 0 && tested.stdout.hasPrefix("Test event evt_"), "\(tested.stderr)")
        let request = try #require(try receiver.requests(atLeast: 1).first)
        var log = ""
        for _ in 0..<200 where !log.contains("\tdelivered\n") {
            log = try rcctl("webhooks", "deliveries", id).stdout
        }
        #expect(log.contains("\ttest\t\(request.id)\tdelivered\n") && log.contains("\t200\t"), "\(log)")
        let delivery = try #require(log.split(separator: "\t").first.map(String.init))
        #expect(try rcctl("webhooks", "redeliver", id, delivery).stdout == "Delivery \(delivery) is pending again\n")
        #expect(try receiver.requests(atLeast: 2).last?.id == request.id)
        #expect(try rcctl("webhooks", "rotate", id, "--overlap", "0").stdout.contains("(shown once):\nwhsec_"))
        let refused = try rcctl("webhooks", "create", "http://[::1", "--event", "test")
        #expect(refused.status == 1 && refused.stderr.contains("http or https URL"), "\(refused.stderr)")
        #expect(try rcctl("webhooks", "create", receiver.url).status == 2, "no --event: a usage error")
        #expect(try rcctl("webhooks", "delete", id).stdout == "Deleted \(id)\n")
        #expect(try rcctl("webhooks", "list").stdout.isEmpty)
    }
}
