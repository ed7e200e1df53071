import ArgumentParser
@testable import ConfigServer
@testable import ServerCore
import Logging
import Testing

/// How the daemon's settings combine (file, then `RCS_*`, then flags) and when it refuses to
/// start, without starting it.
@Suite struct StartupSettingsTests {
    let logger = Logger(label: "test")

    func settings(_ arguments: [String], _ environment: [String: String]) throws -> ServerConfiguration {
        try ServeCommand.parse(["--config", "config/remote-config.json"] + arguments).loadConfiguration(environment: environment)
    }

    @Test func flagsBeatTheEnvironmentWhichBeatsTheFile() throws {
        let fromFile = try settings([], [:])
        #expect(fromFile.host == "127.0.0.1" && fromFile.port == 8080 && fromFile.dataDir == "./data")
        let fromEnvironment = try settings([], ["RCS_HOST": "127.0.0.2", "RCS_PORT": "9000", "RCS_DATA_DIR": "/tmp/e"])
        #expect(fromEnvironment.host == "127.0.0.2" && fromEnvironment.port == 9000 && fromEnvironment.dataDir == "/tmp/e")
        let fromFlags = try settings(["--host", "127.0.0.3", "--port", "9001", "--data-dir", "/tmp/f"],
                                     ["RCS_HOST": "127.0.0.2", "RCS_PORT": "9000", "RCS_DATA_DIR": "/tmp/e"])
        #expect(fromFlags.host == "127.0.0.3" && fromFlags.port == 9001 && fromFlags.dataDir == "/tmp/f")
        #expect(throws: (any Error).self) { try settings([], ["RCS_PORT": "eighty"]) }
    }

    @Test func theEnvironmentsAdminTokenReplacesTheFilesTokens() throws {
        #expect(try settings([], [:]).adminTokens.map(\.token) == [ServerConfiguration.quickStartAdminToken])
        let configured = try settings([], ["RCS_ADMIN_TOKEN": "a-long-random-token"])
        #expect(configured.adminTokens == [AdminTokenDeclaration(name: "env", token: "a-long-random-token")])
    }

    /// The Docker image: every address, the shipped config, a token from the environment.
    @Test func beyondLoopbackTheQuickStartTokenIsRefusedAndARealOneAccepted() throws {
        let command = try ServeCommand.parse([])
        let quickStart = try settings([], ["RCS_HOST": "0.0.0.0"])
        #expect(throws: (any Error).self) { try command.checkSecurity(quickStart, logger: logger) }
        let withToken = try settings([], ["RCS_HOST": "0.0.0.0", "RCS_ADMIN_TOKEN": "a-long-random-token"])
        try command.checkSecurity(withToken, logger: logger)
        try command.checkSecurity(try settings([], [:]), logger: logger)
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("::1", true),
        ("0.0.0.0", false), ("::", false), ("10.0.0.1", false), ("127.example.com", false), ("::ffff:127.0.0.1", false),
    ])
    func loopbackIsDecidedByTheAddressNotItsSpelling(_ host: String, _ loopback: Bool) {
        var configuration = ServerConfiguration()
        configuration.host = host
        #expect(configuration.bindsLoopbackOnly == loopback)
    }
}
