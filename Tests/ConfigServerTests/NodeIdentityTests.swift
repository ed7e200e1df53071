@testable import ConfigServer
@testable import ServerCore
import Foundation
import Testing
import TestSupport

/// The id that names a node's listener on the database: the same across restarts, distinct
/// between nodes, kept in the data directory.
@Suite struct NodeIdentityTests {
    @Test func aNodeKeepsItsIdAcrossRestartsAndAnotherNodeGetsItsOwn() throws {
        let directory = try TemporaryDirectory()
        let first = try NodeIdentity.id(in: directory.url.appendingPathComponent("node-a").path)
        #expect(first.count == 12)
        #expect(try NodeIdentity.id(in: directory.url.appendingPathComponent("node-a").path) == first)
        #expect(try NodeIdentity.id(in: directory.url.appendingPathComponent("node-b").path) != first)
        var configuration = ServerConfiguration()
        configuration.dataDir = directory.url.appendingPathComponent("node-a").path
        configuration.port = 8080
        #expect(try ServerInstance.listenerName(configuration) == "\(first) \(ProcessInfo.processInfo.hostName):8080")
    }

    @Test func aDamagedIdIsRefusedNotReplaced() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent(NodeIdentity.fileName)
        try Data("not an id\n".utf8).write(to: file)
        #expect(throws: ConfigurationError.self) { try NodeIdentity.id(in: directory.path) }
        #expect(try String(contentsOf: file, encoding: .utf8) == "not an id\n")
    }
}
