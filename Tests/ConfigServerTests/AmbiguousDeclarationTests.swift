import ConfigServer
import ServerCore
import Foundation
import ServerTestSupport
import TestSupport
import Testing

/// A configuration that two readers could take two ways is refused at load, with a message that
/// names both places and never a secret (docs/configuration.md, "Declarations that could mean two
/// things").
@Suite(.timeLimit(.minutes(1))) struct AmbiguousDeclarationTests {
    /// The message `validate` refuses `json` with, or nil when it accepts it.
    func refusal(_ json: String) throws -> String? {
        try TemporaryDirectory.with("rcs-config") { directory in
            let path = directory.appendingPathComponent("config.json").path
            try Data(json.utf8).write(to: URL(fileURLWithPath: path))
            let configuration = try ServerConfiguration.load(from: path)
            do {
                try configuration.validate()
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    /// SHA-256 of `admin-secret-1` (sha256sum).
    static let adminSecretDigest = "e25e82fa9915f35c3c11033fd9d5c7f422500af1d60479e0f627f6a6249b165f"

    static func projects(_ first: String, _ second: String) -> String {
        #"{"projects": [{"id": "demo", "number": "1", "apiKeys": [\#(first)]}, {"id": "other", "number": "2", "apiKeys": [\#(second)]}]"#
    }

    @Test func aClientKeyUnderTwoProjectsIsRefusedNamingBoth() throws {
        let message = try #require(try refusal(Self.projects(#""own-key", "shared-client-key""#, #""shared-client-key""#) + "}"))
        #expect(message.contains("projects[0] ('demo').apiKeys[1]") && message.contains("projects[1] ('other').apiKeys[0]"), "\(message)")
        #expect(!message.contains("shared-client-key"), "never the key: \(message)")
        // The same key twice under one project means one thing.
        #expect(try refusal(Self.projects(#""k", "k""#, #""k2""#) + "}") == nil)
    }

    @Test func anAdminSecretListedTwiceIsRefusedWhetherInClearOrByDigest() throws {
        let twice = try #require(try refusal(#"""
            {"adminTokens": [{"name": "a", "token": "admin-secret-1"}, {"name": "b", "token": "admin-secret-1", "roles": {"p1": "viewer"}}]}
            """#))
        #expect(twice.contains("adminTokens[0] ('a')") && twice.contains("adminTokens[1] ('b')"), "\(twice)")
        #expect(!twice.contains("admin-secret-1"), "never the secret: \(twice)")
        let digest = Self.adminSecretDigest.uppercased()
        let byDigest = try #require(try refusal(#"""
            {"adminTokens": [{"name": "a", "sha256": "\#(digest)"}, {"name": "b", "token": "admin-secret-1"}]}
            """#))
        #expect(byDigest.contains("adminTokens[0] ('a')") && byDigest.contains("adminTokens[1] ('b')"), "\(byDigest)")
    }

    @Test func anAdminTokenNameListedTwiceIsRefused() throws {
        let message = try #require(try refusal(#"{"adminTokens": [{"name": "ci", "token": "t1"}, {"name": "ci", "token": "t2"}]}"#))
        #expect(message.contains("adminTokens[0] and adminTokens[1] are both named 'ci'"), "\(message)")
    }

    @Test func anAdminTokenWhoseTwoFormsDisagreeOrThatCannotMatchIsRefused() throws {
        let disagree = try #require(try refusal(#"""
            {"adminTokens": [{"name": "a", "token": "t1", "sha256": "c44474038d459e40e4714afefa7bf8dae9f9834b22f5e8ec1dd434ecb62b512e"}]}
            """#))
        #expect(disagree.contains("adminTokens[0] ('a')") && disagree.contains("'token' and 'sha256' name different secrets"), "\(disagree)")
        #expect(try refusal(#"{"adminTokens": [{"name": "a", "token": "t1", "sha256": "628b49d96dcde97a430dd4f597705899e09a968f793491e4b704cae33a40dc02"}]}"#) == nil)
        let short = try #require(try refusal(#"{"adminTokens": [{"name": "a", "sha256": "abc"}]}"#))
        #expect(short.contains("adminTokens[0] ('a'): sha256 must be 64 hex digits"), "\(short)")
        let apiForm = try #require(try refusal(#"{"adminTokens": [{"name": "a", "token": "rcs_pat_0123456789ab_secret"}]}"#))
        #expect(apiForm.contains("adminTokens[0] ('a')") && apiForm.contains("rcs_pat_"), "\(apiForm)")
    }

    @Test func anAdminTokenThatIsAlsoAClientKeyIsRefused() throws {
        let message = try #require(try refusal(#"""
            {"adminTokens": [{"name": "a", "token": "both-ways"}], "projects": [{"id": "demo", "number": "1", "apiKeys": ["both-ways"]}]}
            """#))
        #expect(message.contains("adminTokens[0] ('a')") && message.contains("projects[0] ('demo').apiKeys[0]"), "\(message)")
        #expect(!message.contains("both-ways"), "never the secret: \(message)")
    }

    @Test func aSignInMappingOfTheSameDomainOrGroupTwiceIsRefused() throws {
        func signIn(_ mappings: String) -> String {
            #"{"signIn": {"issuer": "https://id.example.com", "clientID": "c", "roleMappings": [\#(mappings)]}}"#
        }
        let domain = try #require(try refusal(signIn(#"""
            {"emailDomain": "example.com", "roles": {"p1": "viewer"}}, {"group": "ops", "owner": true},
            {"emailDomain": "EXAMPLE.com", "roles": {"p1": "admin"}}
            """#)))
        #expect(domain.contains("signIn.roleMappings[0] and signIn.roleMappings[2]") && domain.contains("example.com"), "\(domain)")
        let group = try #require(try refusal(signIn(#"{"group": "ops", "owner": true}, {"group": "ops", "roles": {"p1": "viewer"}}"#)))
        #expect(group.contains("signIn.roleMappings[0] and signIn.roleMappings[1]") && group.contains("'ops'"), "\(group)")
        #expect(try refusal(signIn(#"{"group": "ops", "owner": true}, {"emailDomain": "ops", "roles": {"p1": "viewer"}}"#)) == nil)
    }

    /// The real daemon: a key under two projects stops it before it serves.
    @Test func theDaemonRefusesToStartWithAKeyUnderTwoProjects() throws {
        try TemporaryDirectory.with("rcs-ambiguous") { directory in
            let config = directory.appendingPathComponent("config.json").path
            try Data((Self.projects(#""shared-client-key""#, #""shared-client-key""#) + "}").utf8).write(to: URL(fileURLWithPath: config))
            let (status, log) = try DaemonProcess.runUntilExit(arguments: DaemonProcess.arguments(
                dataDir: directory.appendingPathComponent("data").path, workers: 1, config: config))
            #expect(status == 1, "\(log)")
            #expect(log.contains("projects[0] ('demo').apiKeys[0]") && log.contains("projects[1] ('other').apiKeys[0]"), "\(log)")
            #expect(!log.contains("shared-client-key"), "never the key: \(log)")
        }
    }

    /// A key made through the API for one project, then declared in the config file for another:
    /// the next start is refused, naming both, and the key's id but never the key.
    @Test func aStoredKeyThatTheFileDeclaresForAnotherProjectStopsTheStart() throws {
        try TemporaryDirectory.with("rcs-stored-key") { directory in
            let data = directory.appendingPathComponent("data")
            let admin = AdminTokenDeclaration(name: "tester", token: TestServer.adminToken)
            let demo = ProjectDeclaration(id: "demo", number: "1")
            let first = try ServerInstance.forTests(dataDirectory: data, adminToken: admin, projects: [demo]) { _ in }
            let client = try TestClient(port: first.port)
            try client.send(TestClient.format("POST", "/v1/projects/demo/apiKeys", headers: [("Authorization", "Bearer \(TestServer.adminToken)")],
                                              body: Array(#"{"name":"ios"}"#.utf8)))
            let created = try client.readResponse()
            first.shutdown()
            let json = try created.json()
            let key = try #require(json["key"] as? String), id = try #require(json["id"] as? String)
            let other = ProjectDeclaration(id: "other", number: "2", apiKeys: [key])
            do {
                let second = try ServerInstance.forTests(dataDirectory: data, adminToken: admin, projects: [demo, other]) { _ in }
                second.shutdown()
                Issue.record("the server started with one key under two projects")
            } catch {
                let message = "\(error)"
                #expect(message.contains("projects[1] ('other').apiKeys[0]") && message.contains("project 'demo'")
                    && message.contains(id), "\(message)")
                #expect(!message.contains(key), "never the key: \(message)")
            }
        }
    }
}
