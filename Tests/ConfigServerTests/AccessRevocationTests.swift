import Foundation
import PostgresTestSupport
import TestSupport
import Testing

/// A token revoked (or a role taken away) through one worker or node is refused by every other
/// as soon as the revocation is answered: real daemons, new connections.
@Suite(.serialized, .timeLimit(.minutes(3))) final class AccessRevocationTests {
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory("rcs-revocation")
    }

    /// A service account with `viewer` on the example project and a token for it, made through
    /// `port`; returns the token's id and secret.
    static func token(through port: Int) throws -> (id: String, secret: String) {
        #expect(try DaemonTests.admin(port, "POST", "/v1/principals", body: #"{"displayName":"Dashboard"}"#).status == 200)
        #expect(try DaemonTests.admin(port, "PUT", "/v1/projects/example-project/members/svc-dashboard",
                                      body: #"{"role":"viewer"}"#).status == 200)
        let json = try DaemonTests.admin(port, "POST", "/v1/tokens", body: #"{"principal":"svc-dashboard","name":"wall"}"#).json()
        return (try #require(json["id"] as? String), try #require(json["token"] as? String))
    }

    /// The statuses of `count` reads with `secret`, each on a new connection to `port`.
    static func reads(_ port: Int, _ secret: String, count: Int) throws -> [Int] {
        try (0..<count).map { _ in
            let client = try TestClient(port: port)
            try client.send(TestClient.format("GET", "/v1/projects/example-project/remoteConfig",
                                              headers: [("Authorization", "Bearer \(secret)")], body: []))
            return try client.readResponse().status
        }
    }

    @Test func everyWorkerRefusesARevokedTokenOnceTheRevocationIsAnswered() throws {
        let daemon = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("data").path, workers: 4)
        let (id, secret) = try Self.token(through: daemon.port)
        #expect(Set(try Self.reads(daemon.port, secret, count: 24)) == [200], "every worker knows the new token")
        #expect(try DaemonTests.admin(daemon.port, "DELETE", "/v1/tokens/\(id)").status == 204)
        #expect(Set(try Self.reads(daemon.port, secret, count: 40)) == [403])
    }

    @Test func everyNodeRefusesARevokedTokenOnceTheRevocationIsAnswered() throws {
        let database = try TestDatabase()
        let nodes = try (1...2).map { index in
            try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node\(index)").path, workers: 2,
                              extraEnvironment: ["RCS_DATABASE_URL": database.url])
        }
        let (id, secret) = try Self.token(through: nodes[0].port)
        #expect(Set(try Self.reads(nodes[1].port, secret, count: 12)) == [200], "the other node knows the new token")
        #expect(try DaemonTests.admin(nodes[0].port, "DELETE", "/v1/tokens/\(id)").status == 204)
        #expect(Set(try Self.reads(nodes[1].port, secret, count: 20)) == [403])
        // A role taken away on one node is gone on the other too.
        let other = try DaemonTests.admin(nodes[0].port, "POST", "/v1/tokens", body: #"{"principal":"svc-dashboard","name":"tv"}"#)
        let otherSecret = try #require(try other.json()["token"] as? String)
        #expect(Set(try Self.reads(nodes[1].port, otherSecret, count: 6)) == [200])
        #expect(try DaemonTests.admin(nodes[0].port, "DELETE", "/v1/projects/example-project/members/svc-dashboard").status == 204)
        #expect(Set(try Self.reads(nodes[1].port, otherSecret, count: 12)) == [403])
    }
}
