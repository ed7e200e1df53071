import ConfigStore
import Foundation
import Glibc
import PostgresStore
import PostgresTestSupport
import TestSupport

/// Real daemons on a PostgreSQL cluster of their own, each node reaching it through a
/// `FaultyLink`, and the faults a scenario injects into them. Everything it starts it stops,
/// whatever happens: the nodes and links when it goes away, the cluster in `shutDown()`.
final class FaultCluster {
    let temporary: TemporaryDirectory
    let cluster: (url: String, directory: String)
    let database: TestDatabase
    let links: [FaultyLink]
    private(set) var daemons: [DaemonProcess?]
    private var databaseHalted = false
    let nodes: [Workload.Node]

    /// - Parameter seed: chooses which chunks the links' losses hold back.
    init(nodes count: Int, workers: Int = 2, seed: UInt64) throws {
        temporary = try TemporaryDirectory("rcs-faults")
        cluster = try PostgresTestServer.startCluster()
        do {
            database = try TestDatabase(serverURL: cluster.url)
            guard let serverPort = URLComponents(string: database.url)?.port else { throw TestFailure("no port in \(database.url)") }
            links = try (0..<count).map { try FaultyLink(upstreamPort: serverPort, seed: seed &+ UInt64($0)) }
            daemons = []
            for index in 0..<count {
                daemons.append(try Self.start(index, link: links[index], database: database, temporary: temporary, workers: workers))
            }
            nodes = daemons.enumerated().map { Workload.Node(index: $0.offset, port: $0.element?.port ?? 0) }
        } catch {
            try? PostgresTestServer.stopCluster(directory: cluster.directory)
            throw error
        }
    }

    private static func start(_ index: Int, link: FaultyLink, database: TestDatabase, temporary: TemporaryDirectory,
                              workers: Int) throws -> DaemonProcess {
        try DaemonProcess(dataDir: temporary.url.appendingPathComponent("node\(index)").path, workers: workers,
                          extraEnvironment: ["RCS_DATABASE_URL": try link.url(replacingPortOf: database.url)])
    }

    /// Stops the nodes, the links and the cluster (continuing it first if paused, starting it if halted).
    func shutDown() {
        signalDatabase(SIGCONT)
        if databaseHalted { try? resumeDatabase() }
        for index in daemons.indices { daemons[index] = nil }
        links.forEach { $0.stop() }
        try? PostgresTestServer.stopCluster(directory: cluster.directory)
    }

    // MARK: Faults

    /// Kills node `index` with SIGKILL; it answers nothing until `restart`.
    func kill(_ index: Int) {
        nodes[index].moved(to: nil)
        daemons[index]?.kill(SIGKILL)
        _ = daemons[index]?.waitForExit()
        daemons[index] = nil
    }

    /// Starts node `index` again on its data directory (on a new port).
    func restart(_ index: Int) throws {
        let daemon = try Self.start(index, link: links[index], database: database, temporary: temporary, workers: 2)
        daemons[index] = daemon
        nodes[index].moved(to: daemon.port)
    }

    /// Kills one worker of node `index` with SIGKILL; its supervisor starts another.
    func killWorker(of index: Int) throws {
        guard let worker = daemons[index]?.children().alive.min() else { throw TestFailure("node \(index) has no worker") }
        Glibc.kill(worker, SIGKILL)
    }

    /// Sends `signal` to every process of the database cluster (SIGSTOP pauses it: connections
    /// stay open and nothing answers; SIGCONT continues it).
    func signalDatabase(_ signal: Int32) {
        guard let text = try? String(contentsOfFile: cluster.directory + "/data/postmaster.pid", encoding: .utf8),
              let postmaster = text.split(separator: "\n").first.flatMap({ pid_t($0) })
        else { return }
        let processes = [postmaster] + Self.children(of: postmaster)
        for pid in processes { Glibc.kill(pid, signal) }
    }

    /// Stops the database at once (`pg_ctl stop -m immediate`): every connection is closed and
    /// new ones are refused until `resumeDatabase()`.
    func haltDatabase() throws {
        try PostgresTestServer.haltCluster(directory: cluster.directory)
        databaseHalted = true
    }

    /// Starts the halted database again on its data and port; returns once it accepts connections.
    func resumeDatabase() throws {
        try PostgresTestServer.resumeCluster(directory: cluster.directory)
        databaseHalted = false
    }

    private static func children(of parent: pid_t) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let nameEnd = stat.range(of: ") ", options: .backwards)
            else { return nil }
            let fields = stat[nameEnd.upperBound...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == parent ? pid : nil
        }
    }

    // MARK: Reading

    /// Every version the database holds for the example project's client template: number → `k`.
    func storedVersions() throws -> [Int64: String?] {
        let connection = try database.connect()
        defer { connection.close() }
        let rows = try connection.query(
            "SELECT version_number, template_json FROM template_versions WHERE project = $1 AND namespace = 'firebase'",
            [.text(NodeCalls.project)]
        ) { row in (row.int64(at: 0), NodeCalls.value(in: String(decoding: row.bytes(at: 1), as: UTF8.self))) }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }
}
