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

extension EventLoop {
    /// Watches `fd` for readability; `handler` must drain it (loop thread only, or before start).
    /// The caller keeps owning and eventually closes the descriptor.
    public func watchReadable(fd: Int32, _ handler: @escaping () -> Void) throws(SocketError) {
        try register(ReadableWatcher(fd: fd, onReadable: handler), events: UInt32(RCS_EPOLLIN))
    }
}
