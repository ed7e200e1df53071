import CLinuxIO

/// Calls a handler on the loop thread whenever a descriptor the caller owns becomes readable
/// (level-triggered), e.g. a datagram socket other processes notify this one through.
final class ReadableWatcher: EventSource {
    let fd: Int32
    let generation: UInt32 = 0
    private let onReadable: () -> Void

    init(fd: Int32, onReadable: @escaping () -> Void) {
        self.fd = fd
        self.onReadable = onReadable
    }

    func handle(events: UInt32) {
        onReadable()
    }
}

/// A descriptor an `EventLoop` watches for readability.
public struct ReadableWatch {
    let watcher: ReadableWatcher
}

extension EventLoop {
    /// Watches `fd` for readability; `handler` must drain it (loop thread only, or before start).
    /// The caller keeps owning and eventually closes the descriptor.
    /// - Returns: the watch, for `stopWatching(_:)`.
    @discardableResult
    public func watchReadable(fd: Int32, _ handler: @escaping () -> Void) throws(SocketError) -> ReadableWatch {
        let watcher = ReadableWatcher(fd: fd, onReadable: handler)
        try register(watcher, events: UInt32(RCS_EPOLLIN))
        return ReadableWatch(watcher: watcher)
    }

    /// Stops a watch (loop thread only). Call it before the descriptor is closed, or at the
    /// latest before the loop runs again: the number may then belong to a new socket, which
    /// this leaves alone.
    public func stopWatching(_ watch: ReadableWatch) {
        preconditionInLoop()
        guard let current = source(fd: watch.watcher.fd, generation: 0), current === watch.watcher else { return }
        removeFromEpoll(watch.watcher)
    }
}
