import Glibc

/// SIGTERM and SIGINT, the signals that stop the server.
///
/// They are blocked from the process's first moment and only ever taken with `sigwait` or a
/// signal descriptor, never by a handler: one that arrives while the process starts stays
/// pending until the process asks for it. A handler installed during start-up leaves a window
/// in which such a signal meets the default action (the process dies mid-start) or, while the
/// handler is being set up, an ignored disposition, which discards it and leaves the process
/// serving when it was told to stop. Threads inherit the mask of the thread that starts them,
/// and the supervisor starts its workers with it, so every thread of every process has them
/// blocked.
enum StopSignals {
    /// SIGTERM and SIGINT.
    static var set: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        return signals
    }

    /// Blocks them in the calling thread, and so in every thread it starts afterwards.
    static func block() {
        var signals = set
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Waits until one of them is pending (it may have been for a while) and takes it.
    /// - Returns: the signal taken.
    @discardableResult
    static func wait() -> Int32 {
        var signals = set
        var received: Int32 = 0
        // sigwait fails only for an invalid set; it is not interrupted by other signals.
        while sigwait(&signals, &received) != 0 {}
        return received
    }
}
