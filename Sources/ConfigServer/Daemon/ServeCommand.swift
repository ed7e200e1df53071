public import ArgumentParser
import CLinuxIO
import ConfigCore
import Foundation
import Glibc
import Logging
import ServerCore

/// `remote-config-server`: the daemon. Settings come from the config file, then `RCS_*`
/// environment variables, then flags.
public struct ServeCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "remote-config-server",
        abstract: "A self-hosted, real-time remote config server compatible with Firebase Remote Config.")

    @Option(help: "JSON config file (env RCS_CONFIG).")
    var config: String?
    @Option(help: "Address to listen on (env RCS_HOST; default 127.0.0.1).")
    var host: String?
    @Option(help: "Port to listen on, 0 for any (env RCS_PORT; default 8080).")
    var port: Int?
    @Option(name: .customLong("data-dir"), help: "Directory of the SQLite database (env RCS_DATA_DIR; default ./data).")
    var dataDir: String?
    @Option(help: "Worker processes, 0 = one per core (env RCS_WORKERS).")
    var workers: Int?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error (env RCS_LOG_LEVEL).")
    var logLevel: String?
    @Option(name: .customLong("log-format"), help: "text or json (env RCS_LOG_FORMAT).")
    var logFormat: String?

    public init() {}

    /// Parses the command line and runs; exits with a message on bad input.
    public static func runFromCommandLine() {
        // Before anything else, so that no stop signal can arrive unblocked (see `StopSignals`).
        StopSignals.block()
        main()
    }

    public func run() throws {
        let environment = ProcessInfo.processInfo.environment
        var settings = try loadConfiguration(environment: environment)
        // The one clock of the process: every time of day it reads comes from here.
        let clock = SystemClock()
        let logger = Self.makeLogger(level: settings.logLevel, format: settings.logFormat, worker: environment["RCS_WORKER_INDEX"],
                                     clock: clock)
        if let worker = WorkerEnvironment(environment) {
            settings.port = worker.port
            do {
                try WorkerProcess.run(settings, membership: worker.membership, readyFD: worker.readyFD, clock: clock, logger: logger)
            } catch {
                // The supervisor restarts the worker, or stops the server if it never starts.
                logger.critical("worker cannot start", metadata: ["error": "\(error)"])
                throw ExitCode.failure
            }
            return
        }
        try checkSecurity(settings, logger: logger)
        if settings.port != 0 && rcs_port_accepting(settings.host, Int32(settings.port)) != 0 {
            throw ConfigurationError("\(settings.host):\(settings.port) is already in use by another server")
        }
        let limit = rcs_raise_nofile_limit()
        let workerCount = settings.workers == 0 ? max(1, ProcessInfo.processInfo.activeProcessorCount) : settings.workers
        logger.info("starting", metadata: [
            "host": "\(settings.host)", "port": "\(settings.port)", "workers": "\(workerCount)",
            "openFileLimit": "\(limit)",
            "connectionsPerWorker": "\(min(settings.http.maxConnectionsPerWorker, max(0, limit - 64)))",
        ])
        if workerCount == 1 {
            try WorkerProcess.run(settings, membership: nil, readyFD: nil, clock: clock, logger: logger)
        } else {
            try Supervisor(settings: settings, workers: workerCount, clock: clock, logger: logger).run()
        }
    }

    /// File, then environment, then flags.
    func loadConfiguration(environment: [String: String]) throws -> ServerConfiguration {
        let explicitPath = config ?? environment["RCS_CONFIG"]
        let path = explicitPath ?? "config/remote-config.json"
        var settings = ServerConfiguration()
        if explicitPath != nil || FileManager.default.fileExists(atPath: path) {
            settings = try ServerConfiguration.load(from: path)
        }
        if let value = environment["RCS_HOST"] { settings.host = value }
        if let value = environment["RCS_PORT"] {
            guard let port = Int(value) else { throw ValidationError("RCS_PORT must be a number, got '\(value)'") }
            settings.port = port
        }
        if let value = environment["RCS_DATA_DIR"] { settings.dataDir = value }
        if let value = environment["RCS_WORKERS"] {
            guard let count = Int(value) else { throw ValidationError("RCS_WORKERS must be a number, got '\(value)'") }
            settings.workers = count
        }
        if let value = environment["RCS_LOG_LEVEL"] { settings.logLevel = value }
        if let value = environment["RCS_LOG_FORMAT"] { settings.logFormat = value }
        // A database URL chooses PostgreSQL, as the config file's store block does.
        if let url = environment["RCS_DATABASE_URL"], !url.isEmpty {
            settings.store.kind = .postgres
            settings.store.url = url
        }
        // Like every other setting, the environment's token replaces the file's: a deployment
        // that sets one (the Docker image, say) never also accepts the quick-start token.
        if let token = environment["RCS_ADMIN_TOKEN"], !token.isEmpty {
            settings.adminTokens = [AdminTokenDeclaration(name: "env", token: token)]
        }
        // Kept out of the config file, which is often checked in.
        if let secret = environment["RCS_OIDC_CLIENT_SECRET"], !secret.isEmpty { settings.signIn.clientSecret = secret }
        if let host { settings.host = host }
        if let port { settings.port = port }
        if let dataDir { settings.dataDir = dataDir }
        if let workers { settings.workers = workers }
        if let logLevel { settings.logLevel = logLevel }
        if let logFormat { settings.logFormat = logFormat }
        try settings.validate()
        return settings
    }

    /// Beyond loopback the admin API must have a real token.
    func checkSecurity(_ settings: ServerConfiguration, logger: Logger) throws {
        guard !settings.bindsLoopbackOnly else { return }
        let realTokens = settings.adminTokens.filter { $0.token != ServerConfiguration.quickStartAdminToken }
        guard realTokens.isEmpty || settings.adminTokens.count != realTokens.count else { return }
        let problem = realTokens.isEmpty && settings.adminTokens.isEmpty
            ? "no admin token is configured" : "the quick-start admin token is configured"
        if settings.allowInsecureAdmin {
            logger.warning("listening beyond loopback while \(problem)")
            return
        }
        throw ValidationError("refusing to listen on \(settings.host): \(problem). Set RCS_ADMIN_TOKEN or adminTokens, or allowInsecureAdmin.")
    }

    static func makeLogger(level: String, format: String, worker: String?, clock: any WallClock) -> Logger {
        var logger = Logger(label: "remote-config-server") { label -> any LogHandler in
            format == "json" ? JSONLogHandler(label: label, clock: clock) : StreamLogHandler.standardError(label: label)
        }
        logger.logLevel = Logger.Level(rawValue: level) ?? .info
        if let worker { logger[metadataKey: "worker"] = "\(worker)" }
        return logger
    }
}

/// What the supervisor tells a worker it spawns.
struct WorkerEnvironment {
    let membership: ServerInstance.GroupMembership
    let port: Int
    /// Where the worker reports that it serves (its pid), or nil.
    let readyFD: Int32?

    init?(_ environment: [String: String]) {
        guard let index = environment["RCS_WORKER_INDEX"].flatMap(Int.init),
              let workers = environment["RCS_WORKER_COUNT"].flatMap(Int.init),
              let group = environment["RCS_WORKER_GROUP"],
              let fd = environment["RCS_WORKER_SHARED_FD"].flatMap(Int32.init),
              let port = environment["RCS_WORKER_PORT"].flatMap(Int.init) else { return nil }
        membership = .init(group: group, index: index, workers: workers, sharedFD: fd)
        self.port = port
        readyFD = environment["RCS_WORKER_READY_FD"].flatMap(Int32.init)
    }
}

/// Runs one serving process until SIGTERM or SIGINT, then shuts down gracefully.
enum WorkerProcess {
    /// Expects `StopSignals` blocked since the process started.
    static func run(_ settings: ServerConfiguration, membership: ServerInstance.GroupMembership?, readyFD: Int32?,
                    clock: any WallClock, logger: Logger) throws {
        if let membership {
            _ = rcs_die_with_parent()
            // As `ps` and `top` show the process (spawned as /proc/self/exe, it would be "exe").
            rcs_name_this_thread("rcs-worker-\(membership.index)")
        }
        let instance = try ServerInstance(configuration: settings, membership: membership, clock: clock, logger: logger)
        logger.info("listening", metadata: ["address": "\(settings.host):\(instance.port)"])
        if let readyFD {
            // Never block on a supervisor that stopped reading (e.g. after many restarts).
            _ = fcntl(readyFD, F_SETFL, fcntl(readyFD, F_GETFL) | O_NONBLOCK)
            var pid = getpid()
            _ = write(readyFD, &pid, MemoryLayout<pid_t>.size)
            close(readyFD)
        }
        // Returns at once for a signal that arrived while the worker started.
        StopSignals.wait()
        logger.info("shutting down")
        instance.shutdown()
        logger.info("stopped")
    }
}
