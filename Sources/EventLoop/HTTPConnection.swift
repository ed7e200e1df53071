import CLinuxIO
import Glibc
import HTTP1

/// One accepted TCP connection: the I/O around an ``HTTPConnectionStateMachine``. It reads the
/// socket, feeds the machine what happened and performs what it answers: hands requests to
/// the handler one at a time (responses stay in order under pipelining), writes responses
/// with back-pressure, closes.
///
/// Loop thread only. An idle connection holds no read or write buffer: reads land in the
/// loop's shared buffer and only the bytes of an unfinished request are kept by the parser.
final class HTTPConnection: EventSource {
    let fd: Int32
    let generation: UInt32
    let peer: String
    /// Strong: the server keeps every open connection in its list and closes them all before
    /// it stops, so the cycle ends with the connection; an unowned reference would cost a
    /// checked retain and a release on each of the ~17 uses per request.
    let server: HTTPServer
    // The state below is read and written on every request, only on the loop's thread and
    // never by overlapping accesses (the machine answers with actions; it calls nothing
    // back), so it goes without the run-time exclusivity check: tens of instructions per
    // access, over a thousand per request.
    /// Position in the server's connection list (for O(1) removal).
    @exclusivity(unchecked) var index = 0
    @exclusivity(unchecked) private(set) var machine: HTTPConnectionStateMachine
    @exclusivity(unchecked) private var output: [UInt8] = []
    @exclusivity(unchecked) private var outputSent = 0
    /// Edge-triggered epoll: the kernel may still hold unread bytes.
    @exclusivity(unchecked) private var readPending = true
    /// epoll reported a hang-up or error: read until the end of input, as the FIN that is
    /// waiting raises no further edge.
    @exclusivity(unchecked) private var hangUpSeen = false
    /// `processInput` is on the stack (a handler answered at once): the outer call goes on.
    @exclusivity(unchecked) private var processing = false
    @exclusivity(unchecked) private var onStreamClose: (() -> Void)?
    @exclusivity(unchecked) private var logLine: AccessLogLine?
    @exclusivity(unchecked) private var requestID = ""

    init(fd: Int32, generation: UInt32, peer: String, server: HTTPServer) {
        self.fd = fd
        self.generation = generation
        self.peer = peer
        self.server = server
        self.machine = HTTPConnectionStateMachine(
            parserLimits: server.configuration.limits, limits: server.connectionLimits, now: server.loop.now)
    }

    var handle: ConnectionHandle { ConnectionHandle(server: server, fd: fd, generation: generation) }
    var hasPendingOutput: Bool { outputSent < output.count }
    var isClosed: Bool { machine.isClosed }

    // MARK: Events

    func handle(events: UInt32) {
        if events & UInt32(RCS_EPOLLOUT) != 0, hasPendingOutput {
            flush()
            if isClosed { return }
        }
        if events & (UInt32(RCS_EPOLLRDHUP) | UInt32(RCS_EPOLLHUP) | UInt32(RCS_EPOLLERR)) != 0 { hangUpSeen = true }
        if events & (UInt32(RCS_EPOLLIN) | UInt32(RCS_EPOLLRDHUP) | UInt32(RCS_EPOLLHUP) | UInt32(RCS_EPOLLERR)) != 0 {
            readPending = true
            readAndProcess()
        }
    }

    /// Reads while the connection wants input; stops after a bounded number of reads so one
    /// busy client cannot starve the others, and resumes at the end of the loop iteration.
    func readAndProcess() {
        var reads = 0
        while readPending, machine.wantsInput {
            if reads == 16 {
                server.loop.deferUntilEndOfIteration { [weak self] in self?.readAndProcess() }
                return
            }
            reads += 1
            let count = rcs_recv(fd, server.loop.readBuffer.baseAddress, server.loop.readBuffer.count)
            if count > 0 {
                // A short read emptied the socket (epoll(7)): bytes arriving later raise a new
                // edge, so no further read just to see EAGAIN (one system call per request).
                if count < server.loop.readBuffer.count, !hangUpSeen { readPending = false }
                if machine.phase == .lingering {
                    perform(machine.dropped(count, now: server.loop.now))
                    continue
                }
                let bytes = UnsafeRawBufferPointer(rebasing: server.loop.readBuffer[0..<count])
                if machine.received(bytes, now: server.loop.now) { processInput() }
            } else if count == 0 {
                readPending = false
                perform(machine.peerClosed())
            } else {
                switch errno {
                case EAGAIN, EWOULDBLOCK: readPending = false
                case EINTR: continue
                default: close()
                }
                return
            }
        }
    }

    /// Parses and dispatches buffered requests, one at a time.
    private func processInput() {
        guard !processing else { return }
        processing = true
        defer { processing = false }
        while true {
            switch machine.nextInput(now: server.loop.now) {
            case .needMoreInput, .stop:
                return
            case .sendContinue:
                write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            case .dispatch(let request):
                dispatch(request)
            case .sendErrorAndClose(let status, let reason):
                sendErrorAndClose(status, reason)
                return
            }
        }
    }

    private func dispatch(_ request: HTTPRequest) {
        requestID = RequestID.make(incoming: request.head.headers["X-Request-Id"], counter: server.nextRequestNumber())
        if server.configuration.accessLog {
            let client = ClientAddress.resolve(peer: peer, forwardedFor: request.head.headers.values("X-Forwarded-For"),
                                               trusted: server.configuration.trustedProxies)
            let target = AccessLogLine.redacting(request.head.target, secrets: server.configuration.secretQueryParameters)
            logLine = AccessLogLine(method: request.head.method.rawValue, target: target, client: client,
                                    requestID: requestID, startedMillis: rcs_monotonic_millis())
        }
        let context = RequestContext(peer: peer, loop: server.loop, receivedNanos: rcs_monotonic_nanos(), requestID: requestID,
                                     trustedProxies: server.configuration.trustedProxies)
        server.handler.handle(request, context: context, responder: Responder(handle: handle))
    }

    /// Once a second: acts on a deadline that passed.
    func tick(now: Int64) {
        perform(machine.tick(now: now))
    }

    /// The server stops: a connection between requests closes at once.
    func shutdownBegun() {
        perform(machine.shutdownBegun())
    }

    /// Does what the machine decided after an event that is not about input.
    private func perform(_ action: HTTPConnectionStateMachine.Action) {
        switch action {
        case .none: break
        case .close: close()
        case .sendErrorAndClose(let status, let reason): sendErrorAndClose(status, reason)
        case .linger: linger()
        }
    }

    // MARK: Responses

    func respond(_ response: HTTPResponse) {
        guard let framing = machine.responseFraming() else { return }
        var head: [UInt8] = []
        swap(&head, &server.loop.headBuffer)
        head.removeAll(keepingCapacity: true)
        HTTPResponseEncoder.writeStart(status: response.status, headers: response.headers, into: &head)
        head.append(contentsOf: response.encodedFields)
        if framing.closesConnection { HTTPResponseEncoder.writeField("Connection", value: "close", into: &head) }
        HTTPResponseEncoder.writeField("X-Request-Id", value: requestID, into: &head)
        let bodiless = HTTPResponse.hasNoContent(status: response.status)
        let length = bodiless ? 0 : response.bodyPrefix.count + response.body.count
        HTTPResponseEncoder.writeEnd(contentLength: bodiless ? nil : length, into: &head)
        // The prefix goes out with the head, so the body is written as it is.
        let omitsBody = bodiless || framing.omitsBody
        if !omitsBody { head.append(contentsOf: response.bodyPrefix) }
        logResponse(status: response.status, bytes: length)
        // `write` copies whatever the socket does not take at once, so the buffer can go back.
        write(head, omitsBody ? [] : response.body)
        swap(&head, &server.loop.headBuffer)
        perform(machine.responseWritten(now: server.loop.now))
        guard machine.wantsInput else { return }
        processInput()
        // Answered later than the read that brought the request (e.g. after a store write):
        // nothing is reading this socket any more, so resume. Answered at once, the read
        // loop that is still running carries on by itself.
        if machine.phase == .reading, readPending, !processing {
            server.loop.deferUntilEndOfIteration { [weak self] in self?.readAndProcess() }
        }
    }

    /// Answers a request that cannot be served (unparseable, or too slow), then closes once the
    /// answer is written: nothing after it is trusted.
    private func sendErrorAndClose(_ status: Int, _ reason: String) {
        let format = server.errorBodyFormat.format(forTarget: machine.requestTarget)
        let body = format.encode(status, reason)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: format.contentType)
        headers.add(name: "Connection", value: "close")
        var bytes: [UInt8] = []
        HTTPResponseEncoder.writeHead(status: status, headers: headers, contentLength: body.count, into: &bytes)
        bytes.append(contentsOf: body)
        if logLine == nil, server.configuration.accessLog {
            logLine = AccessLogLine(method: "-", target: "-", client: peer, requestID: "-", startedMillis: rcs_monotonic_millis())
        }
        logResponse(status: status, bytes: body.count)
        write(bytes)
        readPending = false
        if !hasPendingOutput, !isClosed { perform(machine.writeDrained(now: server.loop.now)) }
    }

    /// The error answer is written: the FIN follows it at once, and what the client still
    /// sends is read and dropped until it closes too or a bound is reached (the machine's).
    private func linger() {
        shutdown(fd, Int32(SHUT_WR))
        machine.lingerBegun(now: server.loop.now)
        // Edge-triggered: input already waiting raises no new edge.
        readPending = true
        readAndProcess()
    }

    /// Writes the head of a chunked response that stays open (unframed, ended by the close,
    /// for HTTP/1.0). False when no stream started: the request was already answered, or the
    /// client was gone before its head was written (then `onClose` has already run).
    func startStream(headers: HTTPHeaders, onClose: @escaping () -> Void) -> Bool {
        guard let unframed = machine.streamStarted(now: server.loop.now) else { return false }
        var headers = headers
        if !unframed { headers.add(name: "Transfer-Encoding", value: "chunked") }
        headers.add(name: "Connection", value: "close")
        headers.add(name: "X-Request-Id", value: requestID)
        var bytes: [UInt8] = []
        HTTPResponseEncoder.writeHead(status: 200, headers: headers, contentLength: nil, into: &bytes)
        logResponse(status: 200, bytes: 0)
        onStreamClose = onClose
        write(bytes)
        return !isClosed
    }

    func writeStreamChunk(_ chunk: EncodedChunk) -> Bool {
        switch machine.chunk(backlog: output.count - outputSent) {
        case .drop:
            return false
        case .close:
            close()
            return false
        case .write(let unframed):
            write(unframed ? Array(chunk.payload) : chunk.bytes)
            return machine.phase == .streaming
        }
    }

    func finishStream() {
        guard let lastChunk = machine.streamFinished() else { return }
        if lastChunk {
            var bytes: [UInt8] = []
            HTTPResponseEncoder.writeLastChunk(into: &bytes)
            write(bytes)
        }
        if !hasPendingOutput { close() }
    }

    // MARK: Writing

    private func write(_ bytes: [UInt8]) {
        write(bytes, [])
    }

    /// Writes `head` then `body` in one call when nothing is queued: the body (often a cached
    /// answer shared by many responses) is copied only if the socket cannot take it all.
    private func write(_ head: [UInt8], _ body: [UInt8]) {
        guard !hasPendingOutput else {
            output.append(contentsOf: head)
            output.append(contentsOf: body)
            return
        }
        let sent = head.withUnsafeBytes { first in
            body.withUnsafeBytes { second in
                rcs_send2(fd, first.baseAddress, first.count, second.baseAddress, second.count)
            }
        }
        if sent == head.count + body.count {
            machine.wrote(now: server.loop.now)
            return
        }
        if sent < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
            close()
            return
        }
        let done = max(sent, 0)
        output = done < head.count ? Array(head[done...]) + body : Array(body[(done - head.count)...])
        outputSent = 0
        machine.writeBlocked()
    }

    /// Writes queued output until the socket would block; the next EPOLLOUT edge resumes it.
    private func flush() {
        while hasPendingOutput {
            let sent = output.withUnsafeBytes { buffer in
                rcs_send(fd, buffer.baseAddress! + outputSent, buffer.count - outputSent)
            }
            if sent > 0 {
                outputSent += sent
                machine.wrote(now: server.loop.now)
            } else if sent < 0, errno == EINTR {
                continue
            } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                return
            } else {
                close()
                return
            }
        }
        output = []
        outputSent = 0
        perform(machine.writeDrained(now: server.loop.now))
    }

    // MARK: Closing

    func close() {
        guard !isClosed else { return }
        machine.closed()
        server.connectionClosed(self)
        Glibc.close(fd)
        output = []
        outputSent = 0
        let onClose = onStreamClose
        onStreamClose = nil
        onClose?()
    }

    private func logResponse(status: Int, bytes: Int) {
        guard let line = logLine else { return }
        logLine = nil
        server.logAccess(line, status: status, bytes: bytes)
    }
}
