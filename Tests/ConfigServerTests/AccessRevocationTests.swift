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

    /// A client API key revoked through one worker is refused by every worker at once; a list
    /// shows keys by id and name, never the key.
    @Test func everyWorkerRefusesARevokedAPIKey() throws {
        let daemon = try DaemonProcess(dataDir: temporary.url.appendingPathComponent("keys").path, workers: 4)
        #expect(try MultiNodeTests.publish(daemon.port, "v").status == 200)
        let made = try DaemonTests.admin(daemon.port, "POST", "/v1/projects/example-project/apiKeys", body: #"{"name":"ios"}"#).json()
        let key = try #require(made["key"] as? String), id = try #require(made["id"] as? String)
        let list = try DaemonTests.admin(daemon.port, "GET", "/v1/projects/example-project/apiKeys").text
        #expect(list.contains("\"id\":\"\(id)\"") && list.contains("\"name\":\"ios\"") && !list.contains(key), "\(list)")
        func fetches(_ count: Int) throws -> Set<Int> {
            Set(try (0..<count).map { _ in
                let client = try TestClient(port: daemon.port)
                try client.send(TestClient.format("POST", "/v1/projects/example-project/namespaces/firebase:fetch",
                                                  headers: [("X-Goog-Api-Key", key)],
                                                  body: Array(#"{"appInstanceId":"i","appId":"1:123456789012:ios:a"}"#.utf8)))
                return try client.readResponse().status
            })
        }
        #expect(try fetches(24) == [200])
        #expect(try DaemonTests.admin(daemon.port, "DELETE", "/v1/projects/example-project/apiKeys/\(id)").status == 204)
        #expect(try fetches(40) == [403])
        #expect(try DaemonTests.admin(daemon.port, "DELETE", "/v1/projects/example-project/apiKeys/\(id)").status == 404)
    }
}
