public import Foundation
import Glibc
public import PostgresStore
import Synchronization

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
    /// Not Foundation's Process: it hands the child a socket whose closing tells it the child
    /// exited, and the server the script starts would keep that socket open until it stops.
    private static func spawn(_ argv: [String]) throws(TestServerError) -> (status: Int32, output: String, errors: String) {
        var output: [Int32] = [0, 0]
        var errors: [Int32] = [0, 0]
        guard pipe(&output) == 0, pipe(&errors) == 0 else { throw TestServerError("pipe failed: errno \(errno)") }
        for descriptor in output + errors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        // Every other descriptor this process left inheritable.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 && fcntl(descriptor, F_GETFD) == 0 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        let arguments = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, arguments, environ)
        close(output[1])
        close(errors[1])
        defer {
            close(output[0])
            close(errors[0])
        }
        guard spawned == 0 else { throw TestServerError("cannot run \(argv[0]): errno \(spawned)") }
        // The script writes a line or two: neither pipe fills while the other is read.
        let printed = FileHandle(fileDescriptor: output[0]).readDataToEndOfFile()
        let complaint = FileHandle(fileDescriptor: errors[0]).readDataToEndOfFile()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exitStatus, String(decoding: printed, as: UTF8.self), String(decoding: complaint, as: UTF8.self))
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
