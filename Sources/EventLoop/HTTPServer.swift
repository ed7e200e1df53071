import CLinuxIO
import Dispatch
import Glibc
import HTTP1
public import Logging

/// An HTTP/1.1 server on one ``EventLoop``: accepts connections on a listening socket and
/// serves them with an ``HTTPRequestHandler``.
///
/// Several worker processes each run one server on their own listening socket bound to the
/// same port (SO_REUSEPORT); the kernel spreads connections among them.
public final class HTTPServer: @unchecked Sendable {
    // @unchecked: `configuration`, `handler`, `errorBodyFormat`, `refusal`, `logger`, `loop` and
    // `connectionLimits` are immutable, and the mutable state is touched only on `loop`'s thread:
    // from its events and ticks, from work posted with `loop.execute`, and by methods that assert it.

    public let loop: EventLoop
    public let configuration: HTTPServerConfiguration
    let handler: any HTTPRequestHandler
    /// The handler's format for the errors the server answers by itself.
    let errorBodyFormat: ErrorBodyFormat
    /// The whole answer of ``refuse(_:)``, made once.
    private let refusal: [UInt8]
    let logger: Logger
    /// Deadlines every connection is held to.
    let connectionLimits: HTTPConnectionStateMachine.Limits

    /// Connections currently open (loop thread only).
    public private(set) var connectionCount = 0
    /// True once shutdown began (loop thread only).
    public private(set) var isShuttingDown = false

    private var connections: [HTTPConnection] = []
    private var listener: Listener?
    private var nextGeneration: UInt32 = 1
    private var shutdownHooks: [() -> Void] = []
    private var shutdownDeadline: Int64 = 0
    private var drained: DispatchSemaphore?
    /// Kept open so that at EMFILE one descriptor can be freed to accept and refuse cleanly.
    private var spareFD: Int32 = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)

    public init(configuration: HTTPServerConfiguration, handler: any HTTPRequestHandler, loop: EventLoop, logger: Logger) {
        self.configuration = configuration
        self.handler = handler
        self.errorBodyFormat = handler.errorBodyFormat
        self.refusal = Self.refusal(errorBodyFormat)
        self.loop = loop
        self.logger = logger
        self.connectionLimits = HTTPConnectionStateMachine.Limits(configuration)
        loop.onTick { [unowned self] in self.tick() }
    }

    /// Binds and listens on `host:port` (0 = any free port); returns the bound port.
    /// Call before the loop starts, or on the loop thread.
    public func listen(host: String, port: Int, backlog: Int = 4096) throws(SocketError) -> Int {
        var error: Int32 = 0
        let fd = rcs_listen_tcp(host, Int32(port), Int32(backlog), &error)
        guard fd >= 0 else { throw SocketError("listen on \(host):\(port)", errno: error) }
        let listener = Listener(fd: fd, server: self)
        do {
            try loop.register(listener, events: UInt32(RCS_EPOLLIN))
        } catch {
            Glibc.close(fd)
            throw error
        }
        self.listener = listener
        return Int(rcs_local_port(fd))
    }

    /// Runs `hook` on the loop thread when shutdown begins (e.g. to say goodbye to streams).
    /// Loop thread only, or before the loop starts.
    public func onShutdown(_ hook: @escaping () -> Void) {
        loop.preconditionInLoopOrNotStarted()
        shutdownHooks.append(hook)
    }

    /// Stops accepting, closes idle connections, runs the shutdown hooks and waits (at most the
    /// grace period) for in-flight requests and streams to end; then stops the loop.
    /// Call from any thread but the loop's.
    public func shutdown() {
        let drained = DispatchSemaphore(value: 0)
        loop.execute { [self] in beginShutdown(signalling: drained) }
        drained.wait()
        loop.stopAndWait()
    }

    private func beginShutdown(signalling drained: DispatchSemaphore) {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        self.drained = drained
        shutdownDeadline = loop.now + configuration.shutdownGracePeriod
        if let listener {
            Glibc.close(listener.fd)
            loop.unregister(listener)
            self.listener = nil
        }
        for hook in shutdownHooks { hook() }
        for connection in connections { connection.shutdownBegun() }
        checkDrained()
    }

    private func checkDrained() {
        guard isShuttingDown, let drained else { return }
        if connections.isEmpty || loop.now >= shutdownDeadline {
            for connection in connections { connection.close() }
            self.drained = nil
            drained.signal()
        }
    }

    // MARK: Accepting (loop thread)

    /// Accepts what waits, at most `acceptsPerEvent`. A connection whose request may wait (the
    /// handler says, from its first bytes) is read when its turn comes among the ready ones;
    /// any other is read at once, so that a publish or a health check is not queued behind a
    /// flood of SDK requests.
    fileprivate func acceptConnections(from listener: Listener) {
        var peer = [CChar](repeating: 0, count: 64)
        for accepted in 0..<Self.acceptsPerEvent {
            // A refetch storm fills the accept queue: the looks a busy loop makes between events
            // are made between accepts too. The work they run may have begun the shutdown,
            // which closed the listening socket.
            if accepted % 16 == 15 {
                loop.makeUrgentChecks()
                guard self.listener === listener else { return }
            }
            let fd = rcs_accept(listener.fd, &peer, peer.count)
            if fd < 0 {
                switch errno {
                case EAGAIN, EWOULDBLOCK: return
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE: refuseAtDescriptorLimit(listener); return
                default:
                    logger.warning("accept failed", metadata: ["errno": "\(errno)"])
                    return
                }
            }
            let address = String(decoding: peer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard connectionCount < configuration.maxConnections, !isShuttingDown else {
                refuse(fd)
                continue
            }
            open(fd: fd, peer: address, readNow: !requestMayWait(fd))
        }
    }

    static let acceptsPerEvent = 1024

    /// Whether what `fd` has received so far starts a request the handler lets wait.
    private func requestMayWait(_ fd: Int32) -> Bool {
        let buffer = loop.readBuffer
        let count = recv(fd, buffer.baseAddress, min(buffer.count, 512), Int32(MSG_PEEK | MSG_DONTWAIT))
        guard count > 0 else { return false }
        return handler.mayWait(requestStart: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }

    private func open(fd: Int32, peer: String, readNow: Bool) {
        let generation = nextGeneration
        nextGeneration = nextGeneration == UInt32.max ? 1 : nextGeneration + 1
        let connection = HTTPConnection(fd: fd, generation: generation, peer: peer, server: self)
        let events = UInt32(RCS_EPOLLIN) | UInt32(RCS_EPOLLOUT) | UInt32(RCS_EPOLLRDHUP) | RCS_EPOLLET
        do {
            try loop.register(connection, events: events)
        } catch {
            Glibc.close(fd)
            return
        }
        connection.index = connections.count
        connections.append(connection)
        connectionCount += 1
        // Otherwise registering it queued its readiness behind the connections ready before it.
        if readNow { connection.readAndProcess() }
    }

    /// At the connection limit a client gets a short 503 rather than a hanging accept queue.
    private func refuse(_ fd: Int32) {
        refusal.withUnsafeBytes { _ = rcs_send(fd, $0.baseAddress, $0.count) }
        Glibc.close(fd)
    }

    private static func refusal(_ format: ErrorBodyFormat) -> [UInt8] {
        let body = format.encode(503, "The server is at its connection limit; retry later.")
        let head = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: \(format.contentType)\r\n"
            + "Retry-After: 5\r\nConnection: close\r\nContent-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// Out of descriptors: free the spare one, accept and refuse a waiting client, and stop
    /// listening until the next tick so a full accept queue does not spin the loop.
    private func refuseAtDescriptorLimit(_ listener: Listener) {
        logger.warning("out of file descriptors; refusing connections", metadata: ["open": "\(connectionCount)"])
        if spareFD >= 0 {
            Glibc.close(spareFD)
            spareFD = -1
            var peer = [CChar](repeating: 0, count: 64)
            let fd = rcs_accept(listener.fd, &peer, peer.count)
            if fd >= 0 { refuse(fd) }
            spareFD = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
        }
        loop.removeFromEpoll(listener)
        listener.paused = true
    }

    // MARK: Bookkeeping (loop thread)

    func connectionClosed(_ connection: HTTPConnection) {
        loop.preconditionInLoop()
        loop.unregister(connection)
        let index = connection.index
        let last = connections.removeLast()
        if last !== connection {
            connections[index] = last
            last.index = index
        }
        connectionCount -= 1
        if isShuttingDown, connections.isEmpty { checkDrained() }
    }

    /// Once a second: deadlines of every connection, a paused listener, shutdown progress.
    private func tick() {
        let now = loop.now
        // A connection that closes leaves the list; the loop walks the list as it was.
        for connection in connections { connection.tick(now: now) }
        if let listener, listener.paused {
            do {
                try loop.register(listener, events: UInt32(RCS_EPOLLIN))
                listener.paused = false
            } catch {
                // Still paused: tried again at the next tick rather than never accepting again.
                logger.error("cannot resume accepting connections; retrying in a second", metadata: ["error": "\(error)"])
            }
        }
        checkDrained()
    }

    func logAccess(_ line: AccessLogLine, status: Int, bytes: Int) {
        let millis = rcs_monotonic_millis() - line.startedMillis
        logger.info("\(line.method) \(line.target) \(status)", metadata: [
            "client": "\(line.client)", "request_id": "\(line.requestID)", "bytes": "\(bytes)", "ms": "\(millis)",
        ])
    }

    private var requestCounter: UInt64 = 0

    /// A number for the next request id (loop thread only).
    func nextRequestNumber() -> UInt64 {
        loop.preconditionInLoop()
        requestCounter &+= 1
        return requestCounter
    }
}

/// The listening socket, as an event source of the loop.
private final class Listener: EventSource {
    let fd: Int32
    let generation: UInt32 = 0
    unowned let server: HTTPServer
    var paused = false

    init(fd: Int32, server: HTTPServer) {
        self.fd = fd
        self.server = server
    }

    var isUrgent: Bool { true }

    func handle(events: UInt32) {
        server.acceptConnections(from: self)
    }
}
