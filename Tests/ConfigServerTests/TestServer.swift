import ConfigCore
@testable import ConfigServer
@testable import ServerCore
import ConfigStore
import Foundation
import ServerTestSupport
import TestSupport

/// A real server on 127.0.0.1 and a free port, with its own temporary data directory.
final class TestServer {
    let instance: ServerInstance
    private let directory: TemporaryDirectory
    var port: Int { instance.port }
    static let adminToken = "test-admin-token"
    static let apiKey = "test-api-key"

    /// - Parameters:
    ///   - directory: where its data goes; a server started again on the same one restarts it.
    ///   - clock: the server's; with a `ManualClock` its background jobs run only when the clock
    ///     is moved, poked, or asked to (`runDueJobs`).
    init(directory: TemporaryDirectory? = nil, clock: any WallClock = SystemClock(),
         _ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws {
        self.directory = try directory ?? TemporaryDirectory("rcs-test")
        instance = try ServerInstance.forTests(
            dataDirectory: self.directory.url.appendingPathComponent("data"),
            adminToken: AdminTokenDeclaration(name: "tester", token: Self.adminToken),
            projects: [ProjectDeclaration(id: "demo", number: "424242", apiKeys: [Self.apiKey])],
            clock: clock, adjust)
    }

    /// Runs the background jobs due by the server's clock to the end (webhook attempts
    /// included), as `JobRuntime.runDue` does.
    func runDueJobs() {
        instance.application.jobs.runDue()
    }

    /// Commits a template of one parameter, `key` = `value`, as the demo's next version straight
    /// into the store, as another process or node commits it: no worker of this server is told.
    /// Returns its number.
    @discardableResult
    func commitUnheard(_ value: String) throws -> Int64 {
        try instance.application.store.templates.publish(
            project: "demo", namespace: .client, templateJSON: Array(Templates.single(value).utf8), expectedVersion: nil,
            metadata: PublishMetadata()
        ).versionNumber
    }

    deinit {
        instance.shutdown()
    }

    func client() throws -> TestClient { try TestClient(port: port) }

    /// One request on a new connection.
    func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: String = "") throws -> TestResponse {
        let client = try client()
        try client.send(TestClient.format(method, target, headers: headers, body: Array(body.utf8)))
        return try client.readResponse()
    }

    func admin(_ method: String, _ target: String, headers: [(String, String)] = [], body: String = "") throws -> TestResponse {
        try request(method, target, headers: [("Authorization", "Bearer \(Self.adminToken)")] + headers, body: body)
    }

    /// The real-time request of a client that knows `lastKnown` (project `424242`, the demo,
    /// unless named with its `key`).
    static func streamRequest(lastKnown: String, project: String = "424242", key: String = apiKey) -> [UInt8] {
        TestClient.format("POST", "/v1/projects/\(project)/namespaces/firebase:streamFetchInvalidations",
                          headers: [("X-Goog-Api-Key", key)],
                          body: Array("{\"project\":\"\(project)\",\"namespace\":\"firebase\",\"lastKnownVersionNumber\":\"\(lastKnown)\"}".utf8))
    }

    /// The held-streams gauge of the metrics endpoint.
    func heldGauge() throws -> Int {
        let line = try admin("GET", "/metrics").text.split(separator: "\n")
            .first { $0.hasPrefix("rcs_realtime_held_connections{") }
        return Int(line?.split(separator: " ").last ?? "") ?? -1
    }

    /// Publishes `template` (force) and returns the new version number.
    @discardableResult
    func publish(_ template: String, project: String = "demo", namespace: String? = nil) throws -> Int {
        let path = namespace.map { "/v1/projects/\(project)/namespaces/\($0)/remoteConfig" } ?? "/v1/projects/\(project)/remoteConfig"
        let response = try admin("PUT", path, headers: [("If-Match", "*")], body: template)
        guard response.status == 200, let etag = response.header("ETag"), let version = Int(etag.split(separator: "-").last ?? "") else {
            throw TestFailure("publish failed: \(response.status) \(response.text)")
        }
        return version
    }
}
