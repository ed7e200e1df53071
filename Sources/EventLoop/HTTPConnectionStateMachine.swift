import HTTP1

/// The decisions of one HTTP connection, apart from its socket: which request is handed over
/// next, when to answer `100 Continue`, how a response is framed, which deadline has passed,
/// when to close. ``HTTPConnection`` feeds it events with the loop clock's reading and
/// performs the actions it returns; tests drive it with a manual clock, without sockets.
struct HTTPConnectionStateMachine {
    enum Phase: UInt8 {
        /// Waiting for (more of) a request.
        case reading
        /// A request was handed to the handler; its response is not written yet.
        case handling
        /// A chunked response is held open by the handler.
        case streaming
        /// Writing what is queued, then closing.
        case closing
        /// An error answer is written and the write side shut down: what the client still
        /// sends is read and dropped, for a bounded time and size, before the close. Closing
        /// on unread input would send a reset, and a reset destroys the answer in the client's
        /// buffer before a client that writes its whole body first has read it.
        case lingering
        /// The socket is closed.
        case closed
    }

    /// Deadlines in seconds, and the backlog a held stream may leave unread.
    struct Limits {
        var headerTimeout: Int64
        var bodyTimeout: Int64
        var idleTimeout: Int64
        var writeTimeout: Int64
        var streamOutputCap: Int
        var lingerTimeout: Int64
        var lingerIdleTimeout: Int64
        var lingerMaxBytes: Int

        init(_ configuration: HTTPServerConfiguration) {
            headerTimeout = configuration.headerTimeout
            bodyTimeout = configuration.bodyTimeout
            idleTimeout = configuration.idleTimeout
            writeTimeout = configuration.writeTimeout
            streamOutputCap = configuration.streamOutputCap
            lingerTimeout = configuration.lingerTimeout
            lingerIdleTimeout = configuration.lingerIdleTimeout
            lingerMaxBytes = configuration.lingerMaxBytes
        }
    }

    /// What to do with the bytes read so far.
    enum InputAction: Equatable {
        /// No complete request yet: wait for more bytes.
        case needMoreInput
        /// The client waits for `100 Continue` before it sends its body (RFC 9110 §10.1.1).
        case sendContinue
        /// Hand the request to the handler; no further request is read until it is answered.
        case dispatch(HTTPRequest)
        /// Answer with an error and close: nothing after a request that cannot be parsed is
        /// trusted.
        case sendErrorAndClose(status: Int, reason: String)
        /// No request is wanted now: one is being answered, or the connection is ending.
        case stop
    }

    /// What the connection does after an event.
    enum Action: Equatable {
        case none
        /// Close the socket now.
        case close
        /// Answer with an error, then close once it is written.
        case sendErrorAndClose(status: Int, reason: String)
        /// The error answer is written: shut down the write side and read and drop what the
        /// client still sends (``Phase/lingering``); a later action closes.
        case linger
    }

    /// How the response to the request in hand is written.
    struct ResponseFraming: Equatable {
        /// Sent with `Connection: close`, then the connection closes.
        var closesConnection: Bool
        /// A `HEAD` request: the head alone.
        var omitsBody: Bool
    }

    /// What becomes of one chunk of a held stream.
    enum ChunkAction: Equatable {
        /// No stream is open: the chunk is dropped.
        case drop
        /// Write it; an HTTP/1.0 client gets the payload alone (no chunked coding).
        case write(unframed: Bool)
        /// The client left too much unread: cut it off.
        case close
    }

    static let timeoutReason = "The client took too long to send its request."

    private(set) var phase: Phase = .reading {
        didSet {
            wantsInput = phase == .reading || phase == .streaming || phase == .lingering
            isClosed = phase == .closed
        }
    }
    /// True while reading from the socket is wanted: between requests, and under a held
    /// stream (to notice the close). While a request is being answered nothing is read, so a
    /// pipelining client is held back by its own unanswered requests.
    ///
    /// Stored (kept with `phase`) rather than computed: the connection then reads it in place,
    /// where calling a getter first copies the whole machine, its parser's buffers included,
    /// out of the connection.
    private(set) var wantsInput = true
    /// The socket is closed (stored for the same reason).
    private(set) var isClosed = false
    private(set) var isWriteBlocked = false
    private var parser: HTTPRequestParser
    private let limits: Limits
    /// Clock second the current phase began (request started, stream opened…).
    private var phaseStarted: Int64
    /// Clock second of the last byte read or written.
    private var lastProgress: Int64
    private var keepAlive = true
    private var isHeadRequest = false
    /// An HTTP/1.0 client knows no chunked coding (RFC 9112 §6.1): its stream's body is the
    /// messages themselves, ended by the close.
    private var streamsUnframed = false
    private var peerHasClosed = false
    private var sentContinue = false
    private var isShuttingDown = false
    /// The connection closes after an error answer, with input perhaps unread.
    private var lingersAtClose = false
    /// Bytes dropped while lingering.
    private var lingeredBytes = 0

    /// The target of the request being read, when its request line arrived.
    var requestTarget: String? { parser.requestTarget }

    init(parserLimits: HTTPLimits, limits: Limits, now: Int64) {
        parser = HTTPRequestParser(limits: parserLimits)
        self.limits = limits
        phaseStarted = now
        lastProgress = now
    }

    // MARK: Input

    /// Bytes arrived. False when they are dropped: a held stream answers no further request.
    mutating func received(_ bytes: UnsafeRawBufferPointer, now: Int64) -> Bool {
        lastProgress = now
        guard phase == .reading else { return false }
        if !parser.isMidRequest { phaseStarted = now }
        parser.append(bytes)
        return true
    }

    /// The next thing to do with the bytes received; call until it asks for more input or stops.
    mutating func nextInput(now: Int64) -> InputAction {
        guard phase == .reading else { return .stop }
        let event: HTTPParserEvent?
        do {
            event = try parser.next()
        } catch {
            phase = .closing
            lingersAtClose = true
            return .sendErrorAndClose(status: error.status, reason: error.reason)
        }
        switch event {
        case nil:
            parser.releaseBufferIfEmpty()
            return .needMoreInput
        case .head(let head)?:
            phaseStarted = now
            guard head.expectsContinue, !sentContinue else { return nextInput(now: now) }
            sentContinue = true
            return .sendContinue
        case .request(let request)?:
            phase = .handling
            sentContinue = false
            keepAlive = request.head.keepAlive && !isShuttingDown
            isHeadRequest = request.head.method == .head
            streamsUnframed = request.head.minorVersion == 0
            return .dispatch(request)
        }
    }

    /// The peer sent its FIN.
    mutating func peerClosed() -> Action {
        peerHasClosed = true
        switch phase {
        case .reading:
            guard isWriteBlocked else { return .close }
            phase = .closing
            return .none
        case .streaming, .lingering:
            return .close
        case .handling, .closing, .closed:
            // The response is still written (a half-closed peer may read it), then we close.
            return .none
        }
    }

    // MARK: Output

    /// The handler answers: nil when no request is in hand (already answered, or gone).
    /// Mutating (though it changes nothing) so that the connection calls it in place: a
    /// non-mutating call first copies the whole machine out of the connection.
    mutating func responseFraming() -> ResponseFraming? {
        guard phase == .handling else { return nil }
        return ResponseFraming(closesConnection: !keepAlive || peerHasClosed, omitsBody: isHeadRequest)
    }

    /// The response was handed to the socket: read the next request, or close.
    mutating func responseWritten(now: Int64) -> Action {
        guard phase == .handling else { return .none }
        guard keepAlive, !peerHasClosed else {
            phase = .closing
            return isWriteBlocked ? .none : .close
        }
        phase = .reading
        phaseStarted = now
        return .none
    }

    /// The handler holds the response open; nil when no request is in hand. True when the
    /// stream is unframed (HTTP/1.0).
    mutating func streamStarted(now: Int64) -> Bool? {
        guard phase == .handling else { return nil }
        phase = .streaming
        phaseStarted = now
        parser = HTTPRequestParser(limits: parser.limits)
        return streamsUnframed
    }

    /// A chunk for the held stream, with `backlog` bytes still unread by the client.
    func chunk(backlog: Int) -> ChunkAction {
        guard phase == .streaming else { return .drop }
        return backlog > limits.streamOutputCap ? .close : .write(unframed: streamsUnframed)
    }

    /// The handler ends the stream; nil when none is open. True when a last chunk is due.
    mutating func streamFinished() -> Bool? {
        guard phase == .streaming else { return nil }
        phase = .closing
        return !streamsUnframed
    }

    /// Every byte handed over was taken by the socket.
    mutating func wrote(now: Int64) {
        lastProgress = now
    }

    /// The socket took only part: the rest waits for it to become writable.
    mutating func writeBlocked() {
        isWriteBlocked = true
    }

    /// The waiting output is all written.
    mutating func writeDrained(now: Int64) -> Action {
        isWriteBlocked = false
        lastProgress = now
        guard phase == .closing else { return .none }
        return lingersAtClose && !peerHasClosed ? .linger : .close
    }

    /// The write side is shut down after an error answer: input is dropped from now on.
    mutating func lingerBegun(now: Int64) {
        phase = .lingering
        phaseStarted = now
        lastProgress = now
        parser = HTTPRequestParser(limits: parser.limits)
    }

    /// `count` bytes read while lingering were dropped: past the cap, close.
    mutating func dropped(_ count: Int, now: Int64) -> Action {
        lastProgress = now
        lingeredBytes += count
        return lingeredBytes > limits.lingerMaxBytes ? .close : .none
    }

    // MARK: Time and shutdown

    /// Once a second: a deadline that passed. A request begun and not finished gets a 408;
    /// an idle connection, or a client that does not read its response, is closed.
    mutating func tick(now: Int64) -> Action {
        switch phase {
        case .reading where parser.isMidRequest:
            let limit = parser.isReadingBody ? limits.bodyTimeout : limits.headerTimeout
            guard now - phaseStarted >= limit else { return .none }
            phase = .closing
            lingersAtClose = true
            return .sendErrorAndClose(status: 408, reason: Self.timeoutReason)
        case .reading:
            return now - lastProgress >= limits.idleTimeout ? .close : .none
        case .handling, .streaming, .closing:
            return isWriteBlocked && now - lastProgress >= limits.writeTimeout ? .close : .none
        case .lingering:
            let over = now - phaseStarted >= limits.lingerTimeout || now - lastProgress >= limits.lingerIdleTimeout
            return over ? .close : .none
        case .closed:
            return .none
        }
    }

    /// The server stops: a connection between requests, or one dropping input after its error
    /// answer, closes at once; one that is answering finishes that response with
    /// `Connection: close`.
    mutating func shutdownBegun() -> Action {
        isShuttingDown = true
        return phase == .reading && !parser.isMidRequest || phase == .lingering ? .close : .none
    }

    /// The socket was closed (by either side, or a failed system call).
    mutating func closed() {
        phase = .closed
    }
}
