public import Foundation
import Glibc
public import PostgresStore
import Synchronization
import TestSupport

/// The PostgreSQL server the tests use: `$RCS_TEST_POSTGRES_URL` (a `postgresql://` URL whose
/// user may create databases) or else a throw-away cluster started once per test process by
/// `scripts/postgres-test-server` and stopped when the process exits. Tests fail, never skip,
/// when there is neither.
public enum PostgresTestServer {
    public static let environmentVariable = "RCS_TEST_POSTGRES_URL"

    /// The repository root (this file is Tests/PostgresTestSupport/PostgresTestServer.swift).
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let migrations = repository.appendingPathComponent("migrations/postgres", isDirectory: true)

    /// The server's URL, or why there is none.
    public static var url: String {
        get throws(TestServerError) { try shared.get() }
    }

    private static let shared: Result<String, TestServerError> = {
        if let url = ProcessInfo.processInfo.environment[environmentVariable], !url.isEmpty {
            return .success(url)
        }
        // Short: the cluster's Unix socket lives in it.
        let directory = "/tmp/rcs-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
        let result = Result { () throws(TestServerError) in
            try runScript("start", directory).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if case .success = result {
            startedDirectory.withLock { $0 = directory }
            atexit { PostgresTestServer.stopStartedServer() }
        }
        return result
    }()

    private static let startedDirectory = Mutex<String?>(nil)

    private static func stopStartedServer() {
        guard let directory = startedDirectory.withLock({ $0 }) else { return }
        _ = try? runScript("stop", directory)
    }

    /// Starts a second throw-away cluster (for tests that stop a server); stop it with `stop`.
    public static func startCluster() throws(TestServerError) -> (url: String, directory: String) {
        let directory = "/tmp/rcs-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
        return (try runScript("start", directory).trimmingCharacters(in: .whitespacesAndNewlines), directory)
    }

    /// Stops a cluster `startCluster` started and removes its directory.
    public static func stopCluster(directory: String) throws(TestServerError) {
        _ = try runScript("stop", directory)
    }

    /// Stops a cluster `startCluster` started, keeping its data: a database outage.
    public static func haltCluster(directory: String) throws(TestServerError) {
        _ = try runScript("halt", directory)
    }

    /// Starts a halted cluster again, on the same port.
    public static func resumeCluster(directory: String) throws(TestServerError) {
        _ = try runScript("resume", directory)
    }

    /// Runs `scripts/postgres-test-server` and returns its standard output.
    private static func runScript(_ arguments: String...) throws(TestServerError) -> String {
        let script = repository.appendingPathComponent("scripts/postgres-test-server").path
        let (status, output, errors) = try spawn(["/bin/sh", script] + arguments)
        guard status == 0 else {
            throw TestServerError(
                "no PostgreSQL for the tests: set \(environmentVariable) or make `sh \(script) \(arguments.joined(separator: " "))` work "
                    + "(sh scripts/install-deps installs the server): \(errors)")
        }
        return output
    }

    /// Runs `argv` with only stdin (/dev/null), stdout and stderr open, and waits for it.
    ///
    /// Every other descriptor is closed in the child: the server the script starts would keep
    /// any it inherited open until it stops.
    private static func spawn(_ argv: [String]) throws(TestServerError) -> (status: Int32, output: String, errors: String) {
        do {
            let output = try ChildProcess.makePipe(), errors = try ChildProcess.makePipe()
            let child: ChildProcess
            do {
                defer {
                    close(output.write)
                    close(errors.write)
                }
                child = try ChildProcess(argv[0], Array(argv.dropFirst()), standardOutput: output.write, standardError: errors.write)
            }
            // The script writes a line or two: neither pipe fills while the other is read.
            let printed = output.read.readDataToEndOfFile()
            let complaint = errors.read.readDataToEndOfFile()
            let ended = child.waitUntilExit()
            return (ended.bySignal ? 128 + ended.status : ended.status, String(decoding: printed, as: UTF8.self),
                    String(decoding: complaint, as: UTF8.self))
        } catch {
            throw TestServerError("cannot run \(argv[0]): \(error)")
        }
    }
}

/// Why the tests have no PostgreSQL server.
public struct TestServerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A database of its own for one test (`rcs_t_<random>`), dropped when the owner goes away, so
/// tests never see each other's rows, notifications or advisory locks.
public final class TestDatabase: Sendable {
    /// The database's URL.
    public let url: String
    public let name: String
    private let serverURL: String

    /// A database on the tests' server, or on `serverURL` (a cluster of `startCluster`).
    public init(serverURL given: String? = nil) throws {
        let serverURL = try given ?? PostgresTestServer.url
        self.serverURL = serverURL
        name = "rcs_t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let admin = try PostgresConnection(serverURL)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(name)")
        url = try Self.url(serverURL, database: name)
    }

    deinit {
        guard let admin = try? PostgresConnection(serverURL) else { return }
        _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        admin.close()
    }

    /// `serverURL` with its database replaced.
    public static func url(_ serverURL: String, database: String) throws -> String {
        guard var components = URLComponents(string: serverURL), components.scheme?.hasPrefix("postgres") == true else {
            throw TestServerError("\(PostgresTestServer.environmentVariable) must be a postgresql:// URL")
        }
        components.path = "/" + database
        return try components.string ?? { throw TestServerError("cannot build a URL for \(database)") }()
    }

    /// `url` with its user replaced (a role the test created).
    public static func url(_ url: String, user: String) throws -> String {
        guard var components = URLComponents(string: url) else { throw TestServerError("not a URL: \(url)") }
        components.user = user
        components.password = nil
        return try components.string ?? { throw TestServerError("cannot build a URL for \(user)") }()
    }

    /// A new connection to this database.
    public func connect(applicationName: String = "rcs-tests") throws -> PostgresConnection {
        try PostgresConnection(url, applicationName: applicationName)
    }
}
