public import HTTP1

/// Handles complete requests. Called on the loop thread of the connection.
public protocol HTTPRequestHandler: Sendable {
    /// Answers `request` through `responder`: at once on the loop thread (cheap handlers), or
    /// later from any thread (work that blocks, e.g. a database write). The connection reads
    /// no further request until this one is answered, so pipelined responses stay in order.
    func handle(_ request: HTTPRequest, context: RequestContext, responder: Responder)

    /// How the server writes the errors it answers by itself (read once, when the server is
    /// made); ``ErrorBodyFormat/plainText`` unless the handler names its own.
    var errorBodyFormat: ErrorBodyFormat { get }

    /// Whether a request that starts with `requestStart` (what a new connection has sent so
    /// far: part of its request line, or more) may wait its turn behind the connections already
    /// ready. Every other new connection is read at once. None may wait unless the handler says.
    func mayWait(requestStart: UnsafeRawBufferPointer) -> Bool
}

extension HTTPRequestHandler {
    public var errorBodyFormat: ErrorBodyFormat { .plainText }

    public func mayWait(requestStart: UnsafeRawBufferPointer) -> Bool { false }
}

/// Where a request came from.
public struct RequestContext: Sendable {
    /// The peer's IP address as text.
    public let peer: String
    /// The loop the connection lives on.
    public let loop: EventLoop
    /// When the request was complete and handed to the handler (monotonic nanoseconds).
    public let receivedNanos: Int64
    /// The request's id (`X-Request-Id` as received when it is a sane one, else made here).
    public let requestID: String
    /// The proxies whose `X-Forwarded-For` is believed (`trustedProxies`).
    let trustedProxies: Set<String>

    /// Who sent the request: the peer, or the client a trusted proxy names.
    public func client(forwardedFor: [String]) -> String {
        ClientAddress.resolve(peer: peer, forwardedFor: forwardedFor, trusted: trustedProxies)
    }

    /// Whether the peer is a trusted proxy, whose `X-Forwarded-Proto` is believed.
    public var peerIsTrustedProxy: Bool { trustedProxies.contains(peer) }
}

/// Identifies one connection of one server; stale once the connection is closed, even if the
/// descriptor number is reused.
public struct ConnectionHandle: Sendable, Hashable {
    let server: HTTPServer
    let fd: Int32
    let generation: UInt32

    public static func == (lhs: ConnectionHandle, rhs: ConnectionHandle) -> Bool {
        lhs.fd == rhs.fd && lhs.generation == rhs.generation && lhs.server === rhs.server
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fd)
        hasher.combine(generation)
    }

    /// The live connection, when called on its loop thread.
    var connection: HTTPConnection? {
        server.loop.source(fd: fd, generation: generation) as? HTTPConnection
    }
}

/// The one way to answer a request.
public struct Responder: Sendable {
    let handle: ConnectionHandle

    /// The loop of the connection.
    public var loop: EventLoop { handle.server.loop }

    /// Sends a complete response. Safe from any thread; ignored if the client has gone.
    public func respond(_ response: HTTPResponse) {
        let handle = handle
        // On the loop thread (every cheap handler) no closure is built.
        if handle.server.loop.inLoop {
            handle.connection?.respond(response)
            return
        }
        handle.server.loop.execute {
            handle.connection?.respond(response)
        }
    }

    /// Starts a chunked response that stays open (loop thread only). The head is written at
    /// once; `onClose` runs on the loop thread when the connection ends for any reason. Nil
    /// when no stream started: the connection is gone (even while its head was written) or
    /// its request was already answered.
    public func startStream(headers: HTTPHeaders, onClose: @escaping () -> Void) -> ResponseStream? {
        precondition(loop.inLoop, "startStream must be called on the connection's loop")
        guard let connection = handle.connection, connection.startStream(headers: headers, onClose: onClose) else { return nil }
        return ResponseStream(handle: handle)
    }
}

/// A chunked response held open by a handler.
public struct ResponseStream: Sendable, Hashable {
    let handle: ConnectionHandle

    /// The loop of the connection.
    public var loop: EventLoop { handle.server.loop }

    /// Writes one chunk (loop thread only). Returns false when the connection is gone, or was
    /// just closed because the client stopped reading and the output cap was reached.
    @discardableResult
    public func write(chunk: [UInt8]) -> Bool {
        write(EncodedChunk(chunk))
    }

    /// Writes a chunk framed once for many streams (loop thread only); see ``write(chunk:)``.
    @discardableResult
    public func write(_ chunk: EncodedChunk) -> Bool {
        guard let connection = handle.connection else { return false }
        return connection.writeStreamChunk(chunk)
    }

    /// Ends the response with the last chunk and closes the connection (loop thread only).
    public func finish() {
        handle.connection?.finishStream()
    }

    /// True while the connection is open (loop thread only).
    public var isOpen: Bool { handle.connection != nil }
}
