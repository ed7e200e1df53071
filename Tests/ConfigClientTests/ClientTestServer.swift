import ConfigClient
import ConfigServer
import ServerCore
import Foundation
import ServerTestSupport
import Synchronization
import TestSupport
import Testing

/// The real server in-process on a free loopback port, for the client library's tests. Its data
/// and the clients' cache files live in one temporary directory, removed with the server.
final class ClientTestServer: Sendable {
    static let token = "client-test-admin"
    let instance: ServerInstance
    private let directory: TemporaryDirectory
    private let stopped = Mutex(false)

    /// - Parameters:
    ///   - projects: the declared projects; one project `app` (number 1001, API key `key`) by default.
    ///   - adjust: further changes to the server's configuration.
    init(
        projects: [ProjectDeclaration] = [ProjectDeclaration(id: "app", number: "1001", apiKeys: ["key"])],
        _ adjust: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        directory = try TemporaryDirectory("rcs-client")
        instance = try ServerInstance.forTests(
            dataDirectory: directory.url.appendingPathComponent("data"),
            adminToken: AdminTokenDeclaration(name: "test", token: Self.token),
            projects: projects,
            adjust)
    }

    deinit {
        stop()
    }

    /// Shuts the server down (saying goodbye to held streams); later calls do nothing.
    func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first { instance.shutdown() }
    }

    var baseURL: String { "http://127.0.0.1:\(instance.port)" }

    /// A directory for a client's cache file, inside the server's temporary directory.
    var cacheDirectory: URL { directory.url.appendingPathComponent("cache") }

    func admin(project: String = "app") -> AdminClient {
        AdminClient(baseURL: baseURL, project: project, token: Self.token)
    }

    /// Publishes a template whose parameters have `values` as default values.
    func publish(_ values: [String: String], project: String = "app") async throws {
        let parameters = values.mapValues { ["defaultValue": ["value": $0]] }
        let body = try JSONSerialization.data(withJSONObject: ["parameters": parameters])
        _ = try await admin(project: project).publish(body, ifMatch: "*", validateOnly: false)
    }

    /// The value of a single-series metric of this one-worker server, such as
    /// `rcs_realtime_refusals_total`.
    func metric(_ name: String) async throws -> Int {
        let request = HTTPRequest(method: .get, url: "\(baseURL)/metrics", headers: ["Authorization": "Bearer \(Self.token)"])
        let text = String(decoding: try await CurlTransport().send(request).body, as: UTF8.self)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("\(name){") }, "no metric \(name)")
        return try #require(Int(line.split(separator: " ").last ?? ""))
    }

    /// Polls metric `name` (bounded) until `condition` holds: what the server does with a
    /// connection has no event a client can await.
    func waitForMetric(_ name: String, _ description: String, until condition: (Int) -> Bool) async throws {
        for _ in 0..<400 {
            if condition(try await metric(name)) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("\(name) never became \(description)")
    }

    /// Waits until the server holds exactly `count` real-time streams.
    func waitForHeld(_ count: Int) async throws {
        try await waitForMetric("rcs_realtime_held_connections", "\(count)") { $0 == count }
    }
}
