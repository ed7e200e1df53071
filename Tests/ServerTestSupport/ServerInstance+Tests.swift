public import ConfigCore
public import ConfigServer
public import ServerCore
public import Foundation
import Logging

extension ServerInstance {
    /// A stand-alone server for tests, running in this process: on loopback at a port the
    /// system picks, with its data in `dataDirectory`, one admin token, no access log and only
    /// critical log lines.
    /// - Parameters:
    ///   - dataDirectory: where the SQLite file goes.
    ///   - adminToken: the one admin token.
    ///   - projects: the declared projects.
    ///   - clock: the server's clock; a `ManualClock` runs its jobs only when moved (or poked).
    ///   - adjust: further changes to the configuration.
    public static func forTests(
        dataDirectory: URL,
        adminToken: AdminTokenDeclaration,
        projects: [ProjectDeclaration],
        clock: any WallClock = SystemClock(),
        _ adjust: (inout ServerConfiguration) -> Void
    ) throws -> ServerInstance {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDir = dataDirectory.path
        configuration.adminTokens = [adminToken]
        configuration.projects = projects
        configuration.http.accessLog = false
        adjust(&configuration)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try ServerInstance(configuration: configuration, clock: clock, logger: logger)
    }
}
