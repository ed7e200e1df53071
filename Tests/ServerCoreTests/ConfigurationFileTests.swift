import ServerCore
import Foundation
import TestSupport
import Testing

@Suite struct ConfigurationFileTests {
    /// Writes `json` to a fresh file and loads it.
    func load(_ json: String) throws -> ServerConfiguration {
        try TemporaryDirectory.with("rcs-config") { directory in
            let path = directory.appendingPathComponent("config.json").path
            try Data(json.utf8).write(to: URL(fileURLWithPath: path))
            return try ServerConfiguration.load(from: path)
        }
    }

    func error(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func adminTokensMayHoldRolesOnProjects() throws {
        let loaded = try load(#"{"adminTokens": [{"name": "dash", "token": "t", "roles": {"demo": "viewer"}}]}"#)
        try loaded.validate()
        #expect(loaded.adminTokens.first?.roles == ["demo": "viewer"])
        let unknown = error { try load(#"{"adminTokens": [{"name": "x", "token": "t", "roles": {"demo": "superuser"}}]}"#).validate() }
        #expect(unknown?.contains("the role 'superuser' on project 'demo' is not one of 'viewer', 'editor', 'publisher', 'admin'") == true,
                "\(unknown ?? "")")
        // An owner is a token without roles, never a role on one project.
        #expect(error { try load(#"{"adminTokens": [{"name": "x", "token": "t", "roles": {"demo": "owner"}}]}"#).validate() } != nil)
    }

    @Test func theShippedConfigLoadsAndDeclaresTheExampleProject() throws {
        let configuration = try ServerConfiguration.load(from: "config/remote-config.json")
        try configuration.validate()
        #expect(configuration.host == "127.0.0.1" && configuration.port == 8080)
        #expect(configuration.projects.map(\.id) == ["example-project"])
    }

    @Test func aFileSetsWhatItNamesAndKeepsEveryOtherDefault() throws {
        let configuration = try load("""
            {"$comment": "ignored", "http": {"maxStreamBacklogBytes": 4096}, "realtime": {"heartbeatSeconds": 20}}
            """)
        try configuration.validate()
        #expect(configuration.http.maxStreamBacklogBytes == 4096)
        #expect(configuration.realtime.heartbeatSeconds == 20)
        #expect(configuration.http.maxBodyBytes == HTTPSettings().maxBodyBytes)
        #expect(configuration.realtime.maxLifetimeSeconds == 290)
    }

    @Test func aMisspeltSettingIsAnErrorNamingIt() {
        let message = error { _ = try load(#"{"http": {"maxStreamBacklogByte": 4096}}"#) }
        #expect(message?.contains("unknown setting 'http.maxStreamBacklogByte'") == true)
        #expect(error { _ = try load("[1, 2]") }?.contains("the top level must be a JSON object") == true)
        #expect(error { _ = try load(#"{"port": "eighty"}"#) } != nil)
    }

    @Test func aRemovedSettingIsAnErrorThatNamesItAndSaysWhy() {
        let message = error { _ = try load(#"{"store": {"kind": "postgres", "url": "postgresql://rc@db/rc", "connections": 4}}"#) }
        #expect(message?.contains("the setting 'store.connections' was removed") == true)
        #expect(message?.contains("one PostgreSQL connection for each lane that calls the store (requests, reloads, catchUp, jobs, listener)") == true)
    }

    @Test func outOfRangeValuesAreRejected() throws {
        #expect(error { try load(#"{"http": {"maxStreamBacklogBytes": 0}}"#).validate() }?.contains("maxStreamBacklogBytes") == true)
        #expect(error { try load(#"{"realtime": {"maxLifetimeSeconds": 400}}"#).validate() }?.contains("330") == true)
        #expect(error { try load(#"{"realtime": {"maxLifetimeSeconds": 300}}"#).validate() }?.contains("before 300 s") == true)
        #expect(error { try load(#"{"realtime": {"maxLifetimeSeconds": 299}}"#).validate() } == nil)
        #expect(error { try load(#"{"realtime": {"heartbeatSeconds": 0}}"#).validate() }?.contains("heartbeatSeconds") == true)
    }

    @Test func theStoreBlockChoosesTheEngineAndIsChecked() throws {
        let postgres = try load(#"{"store": {"kind": "postgres", "url": "postgresql://rc@db/rc", "acknowledgementSeconds": 0.5}}"#)
        try postgres.validate()
        #expect(postgres.store.kind == .postgres && postgres.store.acknowledgementSeconds == 0.5)
        #expect(try load("{}").store.kind == .sqlite)
        #expect(error { try load(#"{"store": {"kind": "postgres"}}"#).validate() }?.contains("store.url") == true)
        #expect(error { try load(#"{"store": {"url": "postgresql://rc@db/rc"}}"#).validate() }?.contains("kind postgres") == true)
        #expect(error { try load(#"{"store": {"kind": "mysql"}}"#) } != nil)
        #expect(error { try load(#"{"store": {"kind": "postgres", "url": "u", "acknowledgementSeconds": -1}}"#).validate() }?
            .contains("acknowledgementSeconds") == true)
    }
}
