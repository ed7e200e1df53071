import Foundation
import Glibc
import PostgresTestSupport
import Synchronization
import TestSupport
import Testing

/// Environments as a cluster runs them: three nodes of two workers on one PostgreSQL. A staging
/// key is served staging's values on every node and hears only staging's publishes; a promotion
/// sent to two nodes at once is made once.
@Suite(.serialized, .timeLimit(.minutes(3))) final class EnvironmentNodesTests {
    let temporary: TemporaryDirectory
    let database: TestDatabase
    var nodes: [DaemonProcess] = []

    init() throws {
        temporary = try TemporaryDirectory("rcs-environment-nodes")
        database = try TestDatabase()
        for index in 1...3 {
            nodes.append(try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node\(index)").path, workers: 2,
                                           extraEnvironment: ["RCS_DATABASE_URL": database.url]))
        }
    }

    deinit {
        for node in nodes {
            node.kill(SIGTERM)
            _ = node.waitForExit()
        }
    }

    func admin(_ node: Int, _ method: String, _ target: String, ifMatch: String? = nil, body: String = "") throws -> TestResponse {
        try DaemonTests.admin(nodes[node].port, method, target, headers: ifMatch.map { [("If-Match", $0)] } ?? [], body: body)
    }

    static func template(_ value: String) -> String {
        #"{"parameters":{"k":{"defaultValue":{"value":"\#(value)"}}}}"#
    }

    /// `k` as a fetch with `key` on `node` is served it.
    func fetched(_ node: Int, key: String) throws -> String? {
        let client = try TestClient(port: nodes[node].port)
        try client.send(TestClient.format("POST", "/v1/projects/123456789012/namespaces/firebase:fetch", headers: [("X-Goog-Api-Key", key)],
                                          body: Array(#"{"appInstanceId":"i-1","appId":"1:123456789012:android:ab"}"#.utf8)))
        let response = try client.readResponse()
        #expect(response.status == 200, "\(response.text)")
        return (try response.json()["entries"] as? [String: String])?["k"]
    }

    @Test func aStagingKeyIsServedAndToldOnlyOfStaging() throws {
        let project = "/v1/projects/example-project"
        #expect(try admin(0, "POST", project + "/environments", body: #"{"id":"staging"}"#).status == 200)
        let made = try admin(1, "POST", project + "/apiKeys", body: #"{"name":"staging app","environment":"staging"}"#)
        let stagingKey = try #require(try made.json()["key"] as? String)
        #expect(try admin(0, "PUT", project + "/remoteConfig", ifMatch: "*", body: Self.template("prod 1")).status == 200)
        #expect(try admin(1, "PUT", project + "/environments/staging/remoteConfig", ifMatch: "*", body: Self.template("stage 1")).status == 200)
        for node in 0..<3 {
            #expect(try fetched(node, key: stagingKey) == "stage 1", "node \(node + 1)")
            #expect(try fetched(node, key: "example-api-key") == "prod 1", "node \(node + 1)")
        }
        // A staging client holding version 1 on node 3, and a production one.
        let staging = try TestClient(port: nodes[2].port)
        try staging.send(TestClient.format("POST", "/v1/projects/123456789012/namespaces/firebase:streamFetchInvalidations",
                                           headers: [("X-Goog-Api-Key", stagingKey)], body: Array(#"{"lastKnownVersionNumber":"1"}"#.utf8)))
        #expect(try staging.readHead().status == 200)
        let production = try DaemonTests.openStream(port: nodes[2].port, lastKnown: 1)
        // Production moves to 3 first: were staging's stream told of it, its first message would say 2 or 3.
        for value in ["prod 2", "prod 3"] {
            #expect(try admin(0, "PUT", project + "/remoteConfig", ifMatch: "*", body: Self.template(value)).status == 200)
        }
        #expect(String(decoding: try #require(try production.readChunk()), as: UTF8.self) == "{\"latestTemplateVersionNumber\": \"2\"}\n")
        #expect(try admin(1, "PUT", project + "/environments/staging/remoteConfig", ifMatch: "*", body: Self.template("stage 2")).status == 200)
        #expect(String(decoding: try #require(try staging.readChunk()), as: UTF8.self) == "{\"latestTemplateVersionNumber\": \"2\"}\n")
        #expect(try fetched(2, key: stagingKey) == "stage 2")
        #expect(try fetched(2, key: "example-api-key") == "prod 3")
    }

    @Test func aPromotionSentToTwoNodesAtOnceIsMadeOnce() throws {
        let project = "/v1/projects/example-project"
        #expect(try admin(0, "POST", project + "/environments", body: #"{"id":"staging"}"#).status == 200)
        #expect(try admin(0, "PUT", project + "/remoteConfig", ifMatch: "*", body: Self.template("prod")).status == 200)
        #expect(try admin(2, "PUT", project + "/environments/staging/remoteConfig", ifMatch: "*", body: Self.template("stage")).status == 200)
        let statuses = Mutex<[Int]>([])
        let group = DispatchGroup()
        for port in nodes[0..<2].map(\.port) {
            DispatchQueue.global().async(group: group) {
                let answer = try? DaemonTests.admin(port, "POST", project + "/environments/production/remoteConfig:promoteFrom",
                                                    headers: [("If-Match", "etag-123456789012-1")], body: #"{"from":"staging"}"#)
                statuses.withLock { $0.append(answer?.status ?? -1) }
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(statuses.withLock { $0.sorted() } == [200, 400], "one promotion is made, the other is refused")
        let versions = try #require(try admin(2, "GET", project + "/remoteConfig:listVersions").json()["versions"] as? [[String: Any]])
        #expect(versions.compactMap { $0["promotedFrom"] }.count == 1 && versions.count == 2)
        #expect(try fetched(1, key: "example-api-key") == "stage")
    }
}
