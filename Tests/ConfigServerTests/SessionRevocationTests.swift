@testable import ServerCore
import ConfigCore
import ConfigStore
import Foundation
import PostgresStore
import PostgresTestSupport
import TestSupport
import Testing

/// Console sessions are looked up, not announced: a session started anywhere works on every
/// worker and node at once, and one ended through any of them is refused by all as soon as the
/// end is answered. Real daemons, new connections; the session is written to the store the way
/// a sign-in on another node writes it.
@Suite(.serialized, .timeLimit(.minutes(3))) final class SessionRevocationTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory("rcs-sessions")
    }

    /// Ada, a viewer of the example project, made through `port`; then her session, written
    /// straight into `store`. Returns the session's id and secret.
    static func session(through port: Int, in store: any ConfigDatabase) throws -> (id: String, secret: String) {
        #expect(try DaemonTests.admin(port, "POST", "/v1/principals",
                                      body: #"{"kind":"person","email":"ada@example.com","displayName":"Ada"}"#).status == 200)
        #expect(try DaemonTests.admin(port, "PUT", "/v1/projects/example-project/members/ada@example.com",
                                      body: #"{"role":"viewer"}"#).status == 200)
        let (id, secret) = ConsoleSession.mint()
        let now = Date()
        let session = ConsoleSession(
            id: id, principal: "ada@example.com", sha256: SecretDigest(secret: secret).hex, createTime: Timestamp(now),
            lastSeenTime: Timestamp(now), expireTime: Timestamp(now.addingTimeInterval(3_600)), claimRoles: [:],
            claimOwner: false)
        try store.access.put(.session, id: id, record: Array(TemplateJSON.encode(session)))
        return (id, secret)
    }

    /// The statuses of `count` reads with the session's cookie, each on a new connection.
    static func reads(_ port: Int, _ secret: String, count: Int) throws -> Set<Int> {
        Set(try (0..<count).map { _ in
            let client = try TestClient(port: port)
            try client.send(TestClient.format("GET", "/v1/projects/example-project/remoteConfig",
                                              headers: [("Cookie", "\(ConsoleSession.cookieName)=\(secret)")], body: []))
            return try client.readResponse().status
        })
    }

    @Test func everyWorkerHonoursANewSessionAndRefusesItOnceEnded() throws {
        let data = temporary.url.appendingPathComponent("data").path
        let daemon = try DaemonProcess(dataDir: data, workers: 4)
        let store = try SQLiteConfigDatabase(
            databasePath: URL(fileURLWithPath: data).appendingPathComponent("remote-config.sqlite").path,
            migrationsDirectory: try #require(Migrator.defaultMigrationsDirectory(engine: "sqlite")))
        let (id, secret) = try Self.session(through: daemon.port, in: store)
        let found = try Self.reads(daemon.port, secret, count: 24)
        #expect(found == [200], "every worker finds the session: \(found)")
        #expect(try DaemonTests.admin(daemon.port, "DELETE", "/v1/sessions/\(id)").status == 204)
        #expect(try Self.reads(daemon.port, secret, count: 40) == [401])
    }

    @Test func everyNodeHonoursANewSessionAndRefusesItOnceEnded() throws {
        let database = try TestDatabase()
        let nodes = try (1...2).map { index in
            try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node\(index)").path, workers: 2,
                              extraEnvironment: ["RCS_DATABASE_URL": database.url])
        }
        let store = try PostgresConfigDatabase(
            url: database.url, migrationsDirectory: try #require(Migrator.defaultMigrationsDirectory(engine: "postgres")))
        defer { store.close() }
        let (id, secret) = try Self.session(through: nodes[0].port, in: store)
        #expect(try Self.reads(nodes[1].port, secret, count: 12) == [200], "the other node finds the session")
        #expect(try DaemonTests.admin(nodes[0].port, "DELETE", "/v1/sessions/\(id)").status == 204)
        #expect(try Self.reads(nodes[1].port, secret, count: 20) == [401])
    }
}
