import CLinuxIO
import ConfigCore
import ConfigStore
import Foundation
import Glibc
import Logging
import ServerCore

/// Starts the worker processes that share the port (SO_REUSEPORT), restarts any that exits,
/// and forwards SIGTERM/SIGINT. Owns the group's shared stream counters.
///
/// A stop waits for the workers' graceful shutdown (`http.shutdownGracePeriod`) and
/// `stopMarginSeconds` more; a worker still running then is killed, so that nothing can make
/// a stop wait for ever.
///
/// The store is opened once before any worker starts, so the migrations and the switch to WAL
/// never race between workers, and a database the server cannot use (a newer schema, a data
/// directory it cannot write) stops it with the reason. `listening` is logged once every
/// worker serves; a worker that cannot start at all stops the server (see `WorkerSlot`).
final class Supervisor {
    /// How long past the grace period a stopping worker may take to exit.
    static let stopMarginSeconds = 5
    private let settings: ServerConfiguration
    private let workerCount: Int
    /// The store's, for the migrations it records.
    private let clock: any WallClock
    private let logger: Logger
    private let group = "\(getpid())"
    private var slots: [WorkerSlot]
    private var stopping = false
    /// When the workers still running in a stop get killed (monotonic milliseconds).
    private var stopDeadline: Int64?
    /// Why the server stops on its own (a worker cannot start) or fails to stop cleanly, if it does.
    private var failure: String?
    private var readyFD: Int32 = -1

    init(settings: ServerConfiguration, workers: Int, clock: any WallClock, logger: Logger) {
        self.settings = settings
        self.clock = clock
        self.workerCount = min(workers, StreamAdmission.maxWorkers)
        self.logger = logger
        slots = Array(repeating: WorkerSlot(), count: workerCount)
    }

    func run() throws {
        try prepareStore()
        let sharedFD = rcs_memfd("rcs-shared", SharedRegion.bytes)
        guard sharedFD >= 0, let region = rcs_map_shared(sharedFD, SharedRegion.bytes) else {
            throw ConfigurationError("cannot create the shared stream counters (errno \(errno))")
        }
        _ = rcs_inherit_fd(sharedFD)
        // Port 0 means "any": reserve one so every worker binds the same port.
        var error: Int32 = 0
        let reservation = rcs_bind_reserve_tcp(settings.host, Int32(settings.port), &error)
        guard reservation >= 0 else { throw ConfigurationError("cannot bind \(settings.host):\(settings.port) (errno \(error))") }
        let port = Int(rcs_local_port(reservation))

        // SIGTERM and SIGINT are blocked since the start (see `StopSignals`).
        var blocked = StopSignals.set
        sigaddset(&blocked, SIGCHLD)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        let signals = rcs_signalfd(&blocked)
        guard signals >= 0 else { throw ConfigurationError("cannot create the signal descriptor (errno \(errno))") }
        defer { close(signals) }

        // Each worker writes its pid here once it is bound and serving; "listening" is logged
        // only when all do, so whoever waits for that line can connect at once.
        var readiness: [Int32] = [0, 0]
        guard pipe(&readiness) == 0 else { throw ConfigurationError("cannot create the readiness pipe (errno \(errno))") }
        _ = fcntl(readiness[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(readiness[0], F_SETFL, O_NONBLOCK)
        defer { close(readiness[0]); close(readiness[1]) }
        readyFD = readiness[1]

        // A stop signal that came during the preparation stops the server before any worker starts.
        takeSignals(signals)
        for index in 0..<workerCount { start(index, port: port, sharedFD: sharedFD) }
        var announced = false
        while !stopping || slots.contains(where: { $0.pid != nil }) {
            var descriptors = [pollfd(fd: signals, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: readiness[0], events: Int16(POLLIN), revents: 0)]
            _ = poll(&descriptors, 2, pollTimeout())
            takeSignals(signals)
            // Reap first: a worker writes its pid before it can exit, so every report of an
            // exited worker is in the pipe by the time its exit is handled.
            let exits = reapChildren()
            readReadiness(readiness[0], announced: announced)
            for (pid, status) in exits { handleExit(pid: pid, status: status, region: region) }
            restartDueWorkers(port: port, sharedFD: sharedFD)
            killWorkersPastStopDeadline()
            if !announced && !stopping && slots.allSatisfy(\.isServing) {
                announced = true
                logger.info("listening", metadata: ["address": "\(settings.host):\(port)", "workers": "\(workerCount)"])
            }
        }
        close(reservation)
        if let failure { throw ConfigurationError(failure) }
        logger.info("stopped")
    }

    /// Migrates (and for SQLite sets WAL) once, before any worker opens the store.
    private func prepareStore() throws {
        do {
            try StoreComposition.open(settings, holdingListener: false, clock: clock, logger: logger).close()
        } catch {
            // Foundation keeps a file system error's cause (ENOTDIR, EACCES, ...) one level down.
            let cause = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? POSIXError).map { String(cString: strerror($0.code.rawValue)) }
            throw ConfigurationError("cannot open \(StoreComposition.describe(settings)): \(cause ?? "\(error)")")
        }
    }

    /// Reads every pending signal; SIGTERM or SIGINT stops the workers.
    private func takeSignals(_ signals: Int32) {
        while case let received = rcs_signalfd_next(signals), received != 0 {
            if (received == SIGTERM || received == SIGINT) && !stopping {
                logger.info("stopping workers")
                stopAll()
            }
        }
    }

    private func stopAll() {
        stopping = true
        stopDeadline = rcs_monotonic_millis() + Int64(settings.http.shutdownGracePeriod + Self.stopMarginSeconds) * 1000
        for index in slots.indices {
            if let pid = slots[index].pid { kill(pid, SIGTERM) } else { slots[index].stopped() }
        }
    }

    /// How long `poll` may wait: until the next scheduled restart or the stop deadline, or for
    /// ever (-1).
    private func pollTimeout() -> Int32 {
        guard let next = (slots.compactMap(\.restartAt) + [stopDeadline].compactMap { $0 }).min() else { return -1 }
        return Int32(clamping: max(0, next - rcs_monotonic_millis()))
    }

    /// Kills the workers a stop has waited for too long (once), and fails the stop.
    private func killWorkersPastStopDeadline() {
        guard let stopDeadline, rcs_monotonic_millis() >= stopDeadline else { return }
        self.stopDeadline = nil
        let waited = settings.http.shutdownGracePeriod + Self.stopMarginSeconds
        let stuck = slots.indices.compactMap { index in slots[index].pid.map { (index: index, pid: $0) } }
        guard !stuck.isEmpty else { return }
        for (index, pid) in stuck {
            logger.error("worker did not stop in time; killing", metadata: ["worker": "\(index)", "pid": "\(pid)", "waited": "\(waited)s"])
            kill(pid, SIGKILL)
        }
        let indices = stuck.map { "\($0.index)" }.joined(separator: ", ")
        failure = failure ?? (stuck.count == 1 ? "worker \(indices) did not stop within \(waited) s and was killed"
                                               : "workers \(indices) did not stop within \(waited) s and were killed")
    }

    private func reapChildren() -> [(pid: pid_t, status: Int32)] {
        var exits: [(pid: pid_t, status: Int32)] = []
        while true {
            var status: Int32 = 0
            let pid = waitpid(-1, &status, WNOHANG)
            guard pid > 0 else { return exits }
            exits.append((pid, status))
        }
    }

    /// Marks the workers whose pids arrived on the readiness pipe as serving.
    private func readReadiness(_ fd: Int32, announced: Bool) {
        var pids = [pid_t](repeating: 0, count: 64)
        while true {
            let got = pids.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard got > 0 else { return }
            for pid in pids.prefix(got / MemoryLayout<pid_t>.size) {
                guard let index = slots.firstIndex(where: { $0.pid == pid }) else { continue }
                slots[index].serving(at: rcs_monotonic_millis())
                if announced { logger.info("worker serving again", metadata: ["worker": "\(index)", "pid": "\(pid)"]) }
            }
        }
    }

    private func handleExit(pid: pid_t, status: Int32, region: UnsafeMutableRawPointer) {
        guard let index = slots.firstIndex(where: { $0.pid == pid }) else { return }
        StreamAdmission.reclaim(worker: index, region: SharedRegion.admission(in: region))
        // It serves no more: the node's listener no longer waits for it to catch up.
        CatchUpBoard(region: SharedRegion.catchUp(in: region)).forget(index)
        if index == 0, settings.store.kind == .postgres {
            // The node's listener died with it: other nodes no longer wait for this one, so the
            // other workers read the store before answering until its successor is caught up.
            ChangeCounters(region: SharedRegion.changes(in: region)).setListenerAbsent(true)
        }
        if stopping {
            slots[index].stopped()
        } else {
            scheduleRestart(index, pid: pid, cause: "\(WorkerExit(status: status))")
        }
    }

    /// Schedules the restart of a worker that exited or could not be spawned, or stops the
    /// server when the worker has failed to start too often in a row.
    private func scheduleRestart(_ index: Int, pid: pid_t?, cause: String) {
        var metadata: Logger.Metadata = ["worker": "\(index)", "cause": "\(cause)"]
        if let pid { metadata["pid"] = "\(pid)" }
        guard let delay = slots[index].exited(at: rcs_monotonic_millis()) else {
            failure = "worker \(index) failed to start \(WorkerSlot.maximumFailedStarts) times in a row (last: \(cause))"
            logger.critical("a worker cannot start; stopping", metadata: metadata)
            stopAll()
            return
        }
        metadata["delay"] = "\(Double(delay) / 1000)s"
        logger.error("worker exited; restarting", metadata: metadata)
    }

    private func restartDueWorkers(port: Int, sharedFD: Int32) {
        let now = rcs_monotonic_millis()
        for index in slots.indices where slots[index].restartAt.map({ $0 <= now }) ?? false {
            start(index, port: port, sharedFD: sharedFD)
        }
    }

    private func start(_ index: Int, port: Int, sharedFD: Int32) {
        guard !stopping else { return }
        do {
            slots[index].started(pid: try spawn(index: index, port: port, sharedFD: sharedFD))
        } catch {
            scheduleRestart(index, pid: nil, cause: "\(error)")
        }
    }

    private func spawn(index: Int, port: Int, sharedFD: Int32) throws -> pid_t {
        var environment = ProcessInfo.processInfo.environment
        environment["RCS_WORKER_INDEX"] = "\(index)"
        environment["RCS_WORKER_COUNT"] = "\(workerCount)"
        environment["RCS_WORKER_GROUP"] = group
        environment["RCS_WORKER_SHARED_FD"] = "\(sharedFD)"
        environment["RCS_WORKER_PORT"] = "\(port)"
        environment["RCS_WORKER_READY_FD"] = "\(readyFD)"
        let arguments = CommandLine.arguments
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // Workers start with SIGTERM and SIGINT blocked (see `StopSignals`), SIGCHLD not.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var workerMask = StopSignals.set
        posix_spawnattr_setsigmask(&attributes, &workerMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/proc/self/exe", nil, &attributes, argv, envp)
        guard result == 0 else { throw ConfigurationError("cannot start worker \(index) (error \(result))") }
        return pid
    }
}
