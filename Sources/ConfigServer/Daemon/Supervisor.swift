import CLinuxIO
import Dispatch
import Foundation
import Glibc
import Logging

/// Starts the worker processes that share the port (SO_REUSEPORT), restarts any that dies,
/// and forwards SIGTERM/SIGINT. Owns the group's shared stream counters.
final class Supervisor {
    private let settings: ServerConfiguration
    private let workerCount: Int
    private let logger: Logger
    private let group = "\(getpid())"
    private var pids: [pid_t: Int] = [:]
    private var stopping = false
    private var readyFD: Int32 = -1

    init(settings: ServerConfiguration, workers: Int, logger: Logger) {
        self.settings = settings
        self.workerCount = min(workers, StreamAdmission.maxWorkers)
        self.logger = logger
    }

    func run() throws {
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

        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        sigaddset(&blocked, SIGINT)
        sigaddset(&blocked, SIGCHLD)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)

        // Each worker writes one byte here once it is bound and serving; "listening" is logged
        // only when all are, so whoever waits for that line can connect at once.
        var readiness: [Int32] = [0, 0]
        guard pipe(&readiness) == 0 else { throw ConfigurationError("cannot create the readiness pipe (errno \(errno))") }
        _ = fcntl(readiness[0], F_SETFD, FD_CLOEXEC)
        defer { close(readiness[0]); close(readiness[1]) }
        readyFD = readiness[1]

        for index in 0..<workerCount { try spawn(index: index, port: port, sharedFD: sharedFD) }
        if awaitReadiness(readFD: readiness[0], count: workerCount, timeoutSeconds: 60) {
            logger.info("listening", metadata: ["address": "\(settings.host):\(port)", "workers": "\(workerCount)"])
        } else {
            logger.error("not every worker became ready in time", metadata: ["address": "\(settings.host):\(port)"])
        }

        while !pids.isEmpty {
            var received: Int32 = 0
            sigwait(&blocked, &received)
            if received == SIGTERM || received == SIGINT {
                stopping = true
                logger.info("stopping workers")
                for pid in pids.keys { kill(pid, SIGTERM) }
            }
            reapChildren(region: region, port: port, sharedFD: sharedFD)
        }
        close(reservation)
        logger.info("stopped")
    }

    /// Reads one byte per worker from the readiness pipe, giving up after the timeout.
    private func awaitReadiness(readFD: Int32, count: Int, timeoutSeconds: Int) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutSeconds) * 1_000_000_000
        var ready = 0
        while ready < count {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return false }
            var descriptor = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
            let waited = poll(&descriptor, 1, Int32((deadline - now) / 1_000_000))
            if waited < 0 && errno == EINTR { continue }
            guard waited > 0 else { return false }
            var bytes = [UInt8](repeating: 0, count: count - ready)
            let got = read(readFD, &bytes, bytes.count)
            guard got > 0 else { return false }
            ready += got
        }
        return true
    }

    private func reapChildren(region: UnsafeMutableRawPointer, port: Int, sharedFD: Int32) {
        while true {
            var status: Int32 = 0
            let pid = waitpid(-1, &status, WNOHANG)
            guard pid > 0, let index = pids.removeValue(forKey: pid) else { return }
            StreamAdmission.reclaim(worker: index, region: SharedRegion.admission(in: region))
            guard !stopping else { continue }
            logger.error("worker exited; restarting", metadata: ["worker": "\(index)", "status": "\(status)"])
            sleep(1)
            do {
                try spawn(index: index, port: port, sharedFD: sharedFD)
            } catch {
                logger.critical("cannot restart worker", metadata: ["worker": "\(index)", "error": "\(error)"])
            }
        }
    }

    private func spawn(index: Int, port: Int, sharedFD: Int32) throws {
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
        // Workers start with the default signal mask, not the supervisor's blocked one.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/proc/self/exe", nil, &attributes, argv, envp)
        guard result == 0 else { throw ConfigurationError("cannot start worker \(index) (error \(result))") }
        pids[pid] = index
    }
}
