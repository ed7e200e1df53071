import Glibc

/// The supervisor's record of one worker index: its process, whether it serves, and when to
/// start it again after it exited.
///
/// Restarts back off: the first waits `initialDelay`, each exit in a row doubles the wait up to
/// `maximumDelay`, and a worker that served for `stableAfter` starts the next round afresh.
/// A worker that exits `maximumFailedStarts` times in a row before it ever serves is deemed
/// unable to start: retrying would only run the server short-handed.
struct WorkerSlot {
    static let initialDelayMilliseconds: Int64 = 100
    static let maximumDelayMilliseconds: Int64 = 10_000
    static let stableAfterMilliseconds: Int64 = 30_000
    static let maximumFailedStarts = 5

    /// The running process, nil while the worker waits for its restart.
    private(set) var pid: pid_t?
    /// When the running process reported that it serves (monotonic milliseconds).
    private(set) var servingSince: Int64?
    /// When to start the worker again (monotonic milliseconds), while it is not running.
    private(set) var restartAt: Int64?
    /// Exits before serving since the worker last served.
    private(set) var failedStarts = 0
    private var nextDelay = initialDelayMilliseconds

    var isServing: Bool { pid != nil && servingSince != nil }

    mutating func started(pid: pid_t) {
        self.pid = pid
        servingSince = nil
        restartAt = nil
    }

    mutating func serving(at now: Int64) {
        servingSince = now
        failedStarts = 0
    }

    /// The process exited (or could not be spawned) at `now`: schedules the restart.
    /// - Returns: the delay before the restart, or nil when the worker has failed to start
    ///   `maximumFailedStarts` times in a row.
    mutating func exited(at now: Int64) -> Int64? {
        if let servingSince {
            if now - servingSince >= Self.stableAfterMilliseconds { nextDelay = Self.initialDelayMilliseconds }
        } else {
            failedStarts += 1
        }
        pid = nil
        servingSince = nil
        guard failedStarts < Self.maximumFailedStarts else { return nil }
        let delay = nextDelay
        nextDelay = min(nextDelay * 2, Self.maximumDelayMilliseconds)
        restartAt = now + delay
        return delay
    }

    /// The process exited, or the restart is called off, while the server stops.
    mutating func stopped() {
        pid = nil
        servingSince = nil
        restartAt = nil
    }
}

/// How a worker process ended, decoded from its `waitpid` status for the log.
struct WorkerExit: CustomStringConvertible {
    let status: Int32

    var description: String {
        let signal = status & 0x7F
        if signal == 0 { return "exit status \((status >> 8) & 0xFF)" }
        let name = strsignal(signal).map { String(cString: $0) } ?? "unknown"
        return "killed by signal \(signal) (\(name))" + (status & 0x80 != 0 ? ", core dumped" : "")
    }
}
