import CLinuxIO
public import Foundation
public import Glibc

/// A program run as a child with `posix_spawn`, holding only the descriptors it is given.
///
/// Not Foundation's `Process`: its `run()` crashed (a SIGSEGV in memcpy) when several tests
/// started children at the same moment, and it leaves the child any descriptor another thread
/// opened without close-on-exec — a test's client socket kept open by a server it started would
/// never be seen to close.
public final class ChildProcess: @unchecked Sendable {
    public let pid: Glibc.pid_t
    private let lock = NSLock()
    private var ended: Termination?

    /// Why a child could not be started.
    public struct SpawnFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// How a child ended.
    public struct Termination: Equatable, Sendable {
        /// The exit code, or the number of the signal that ended it.
        public var status: Int32
        public var bySignal: Bool
    }

    /// Starts `executable` with `arguments`. Standard input, output and error are the given
    /// descriptors (duplicated into 0, 1 and 2), or /dev/null where nil; every other descriptor
    /// is closed in the child.
    /// - Parameter environment: the child's whole environment; nil inherits this process's.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                standardInput: Int32? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, given) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            if let given {
                posix_spawn_file_actions_adddup2(&actions, given, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        rcs_spawn_close_from(&actions, 3)

        // As a shell starts a program: no signal blocked, every signal's action the default (a
        // test thread's mask and the runtime's ignored SIGPIPE are not the child's).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environmentLines = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { environmentLines.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environmentLines)
        guard result == 0 else { throw SpawnFailure(description: "cannot run \(executable): \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    /// A pipe whose ends both close on exec: hand `write` to the child, read from `read`, and
    /// close `write` here once the child runs.
    public static func makePipe() throws -> (read: FileHandle, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard rcs_pipe_cloexec(&ends) == 0 else { throw SpawnFailure(description: "pipe2 failed: errno \(errno)") }
        return (FileHandle(fileDescriptor: ends[0], closeOnDealloc: true), ends[1])
    }

    /// Whether it has not exited yet (reaping it if it has).
    public var isRunning: Bool {
        lock.withLock { reapIfEnded() == nil }
    }

    /// Sends `signal`, unless it has been reaped (its pid may belong to another process then).
    public func signal(_ signal: Int32) {
        lock.withLock {
            if reapIfEnded() == nil { _ = Glibc.kill(pid, signal) }
        }
    }

    /// Waits until it exits; safe from several threads at once.
    @discardableResult
    public func waitUntilExit() -> Termination {
        // Waits without reaping, so the pid stays this child's until the lock is held.
        var information = siginfo_t()
        while waitid(P_PID, id_t(pid), &information, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        return lock.withLock {
            guard let ended = reapIfEnded() else { fatalError("child \(pid) neither running nor reaped") }
            return ended
        }
    }

    /// Kills it if it still runs, and reaps it.
    public func kill() {
        signal(SIGKILL)
        waitUntilExit()
    }

    /// Called with the lock held.
    private func reapIfEnded() -> Termination? {
        if ended == nil {
            var raw: Int32 = 0
            var reaped: pid_t
            repeat { reaped = waitpid(pid, &raw, WNOHANG) } while reaped < 0 && errno == EINTR
            if reaped == pid {
                let signal = raw & 0x7F
                ended = signal == 0 ? Termination(status: (raw >> 8) & 0xFF, bySignal: false) : Termination(status: signal, bySignal: true)
            }
        }
        return ended
    }

    deinit {
        if ended == nil { kill() }
    }
}
