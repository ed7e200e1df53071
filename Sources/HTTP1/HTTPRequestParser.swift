/// An incremental, strict HTTP/1.1 request parser (RFC 9112) with no I/O.
///
/// Feed bytes with ``append(_:)`` and pull events with ``next()``. Anything ambiguous is an
/// error — the defences against request smuggling are here: Content-Length together with
/// Transfer-Encoding, differing or malformed lengths, any transfer coding but `chunked`,
/// obs-fold, bare CR or LF, whitespace before a colon, a missing or repeated Host. After an
/// error the parser stays failed.
///
/// Only the bytes of an unfinished request are kept; ``releaseBufferIfEmpty()`` frees the
/// buffer between requests so an idle connection holds none.
public struct HTTPRequestParser: Sendable {
    enum State: Sendable {
        case head
        case fixedBody(HTTPRequestHead, length: Int)
        case chunkSize(HTTPRequestHead)
        case chunkData(HTTPRequestHead, remaining: Int)
        case chunkDataEnd(HTTPRequestHead)
        case trailers(HTTPRequestHead, trailerBytes: Int)
        case failed(HTTPParseError)
    }

    public let limits: HTTPLimits
    var state: State = .head
    var buffer: [UInt8] = []
    /// Start of the unconsumed bytes in `buffer`.
    var start = 0
    /// Offset (from `start`) up to which the head was already searched for its end.
    var scanned = 0
    /// Decoded chunked body so far.
    var chunkedBody: [UInt8] = []
    var announcedHead = false
    /// The request line, judged when its LF arrived; nil until then.
    var requestLine: RequestLine?
    /// Bytes (from `start`) of a chunk-size or trailer line already checked.
    var lineScanned = 0

    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    /// The target of the request being read, once its request line was judged: a refusal
    /// (say, a body too large) can then be worded in the format of the API it was meant for.
    public var requestTarget: String? { requestLine?.target }

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0, start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 4096, start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// True while part of a request has arrived but not all of it.
    public var isMidRequest: Bool {
        if case .head = state { return start < buffer.count }
        if case .failed = state { return false }
        return true
    }

    /// True while the head is complete and the body is still arriving.
    public var isReadingBody: Bool {
        switch state {
        case .head, .failed: false
        default: true
        }
    }

    /// Drops the buffer when nothing unconsumed is left in it.
    public mutating func releaseBufferIfEmpty() {
        if start == buffer.count, buffer.capacity > 0 {
            buffer = []
            start = 0
            scanned = 0
            requestLine = nil
        }
    }

    /// The next event, or `nil` when more bytes are needed.
    public mutating func next() throws(HTTPParseError) -> HTTPParserEvent? {
        do {
            return try step()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func step() throws(HTTPParseError) -> HTTPParserEvent? {
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .head:
                guard let (head, framing) = try parseHead() else { return nil }
                if let event = beginBody(head, framing) { return event }
            case .fixedBody(let head, let length):
                guard buffer.count - start >= length else { return announce(head) }
                let body = Array(buffer[start..<start + length])
                start += length
                return finish(head, body: body)
            case .chunkSize(let head):
                guard let line = try takeLine(limit: 1024, what: "chunk size line") else { return announce(head) }
                let size = try Self.chunkSize(line)
                if size == 0 {
                    state = .trailers(head, trailerBytes: 0)
                } else {
                    guard size <= limits.maxBodyBytes - chunkedBody.count else { throw Self.bodyTooLarge(limits) }
                    state = .chunkData(head, remaining: size)
                }
            case .chunkData(let head, let remaining):
                let available = min(remaining, buffer.count - start)
                if available > 0 {
                    chunkedBody.append(contentsOf: buffer[start..<start + available])
                    start += available
                }
                if available < remaining {
                    state = .chunkData(head, remaining: remaining - available)
                    return announce(head)
                }
                state = .chunkDataEnd(head)
            case .chunkDataEnd(let head):
                guard buffer.count - start >= 2 else { return announce(head) }
                guard buffer[start] == .cr, buffer[start + 1] == .lf else {
                    throw .bad("Chunk data is not followed by CRLF.")
                }
                start += 2
                state = .chunkSize(head)
            case .trailers(let head, let trailerBytes):
                guard let line = try takeLine(limit: limits.maxHeaderBytes - trailerBytes, what: "trailer section") else {
                    return announce(head)
                }
                if line.isEmpty {
                    let body = chunkedBody
                    chunkedBody = []
                    return finish(head, body: body)
                }
                // Trailer fields are checked for syntax and dropped (RFC 9112 §7.1.2).
                try line.withUnsafeBufferPointer { bytes throws(HTTPParseError) in _ = try HeadParser.field(bytes[...]) }
                state = .trailers(head, trailerBytes: trailerBytes + line.count + 2)
            }
        }
    }

    /// Finds and parses a complete head, or returns nil while it is incomplete.
    private mutating func parseHead() throws(HTTPParseError) -> (HTTPRequestHead, BodyFraming)? {
        // RFC 9112 §2.2: ignore empty lines before the request line.
        while buffer.count - start >= 2, buffer[start] == .cr, buffer[start + 1] == .lf {
            start += 2
            // `scanned` counts from `start`; bytes already looked at stay looked at.
            scanned = max(0, scanned - 2)
        }
        // The earliest position of all, so its verdict comes first however the bytes arrive.
        if start < buffer.count { try RequestLine.checkFirstByte(buffer[start]) }
        let checkedUpTo = start + scanned
        let end = findHeadEnd()
        // A complete head is checked like one still arriving, up to (not including) its last
        // byte, so the answer does not depend on how the bytes were split.
        try scanHead(from: checkedUpTo, to: end.map { $0 + 3 } ?? buffer.count)
        guard let end else { return nil }
        // The scan up to the head's end passed the request line's LF, and judged it.
        guard let requestLine else { preconditionFailure("a complete head without a judged request line") }
        let head = try buffer.withUnsafeBufferPointer { all throws(HTTPParseError) in
            try HeadParser(bytes: UnsafeBufferPointer(rebasing: all[start..<end]), limits: limits).parse(requestLine: requestLine)
        }
        start = end + 4
        scanned = 0
        self.requestLine = nil
        return head
    }

    /// Index of the CRLFCRLF ending the head, resuming where the last search stopped.
    private mutating func findHeadEnd() -> Int? {
        let from = start + max(0, scanned - 3)
        let result: Int? = buffer.withUnsafeBufferPointer { bytes in
            // Each LF that could end a CRLFCRLF, found with memchr(3).
            var lf = bytes.firstIndex(of: .lf, from: from + 3)
            while lf < bytes.count {
                if bytes[lf - 3] == .cr, bytes[lf - 2] == .lf, bytes[lf - 1] == .cr { return lf - 3 }
                lf = bytes.firstIndex(of: .lf, from: lf + 1)
            }
            return nil
        }
        if result == nil { scanned = buffer.count - start }
        return result
    }

    /// Checks head bytes in arrival order: a bare CR or LF, a request line that cannot fit the
    /// URI limit, a head that cannot fit the header limit, and the request line itself once its
    /// LF is seen. Only new bytes are examined, so a byte-by-byte sender costs O(n), and a
    /// client using bare LF, HTTP/0.9 or another version is refused at once instead of
    /// waiting for a head end it never sends. Checking by position makes the first problem
    /// win however the bytes arrived.
    private mutating func scanHead(from: Int, to limit: Int) throws(HTTPParseError) {
        let start = start
        // The first positions at which the request line, and the head, are too long.
        let uriTooLongAt = start + limits.maxURILength + 32
        let headTooLongAt = start + limits.maxHeaderBytes + 1
        var requestLine = requestLine
        defer { self.requestLine = requestLine }
        try buffer.withUnsafeBufferPointer { buffer throws(HTTPParseError) in
            var i = max(from, start)
            // A CR that ended the previous scan must be followed by LF.
            if i < limit, i > start, buffer[i - 1] == .cr, buffer[i] != .lf { throw Self.bareCR }
            while i < limit {
                // Bytes other than CR and LF need no check until a length limit is reached:
                // skip to the first CR or LF before it (memchr(3) for each, the LF search
                // bounded by the CR, so each byte is read about once).
                let quietEnd = min(limit, requestLine == nil ? min(uriTooLongAt, headTooLongAt) : headTooLongAt)
                i = buffer.firstIndex(of: .lf, from: i, to: buffer.firstIndex(of: .cr, from: i, to: quietEnd))
                guard i < limit else { break }
                // The checks of one position run in this order, so the first problem wins
                // however the bytes arrived.
                let byte = buffer[i]
                if byte == .lf, i == start || buffer[i - 1] != .cr {
                    throw .bad("A bare LF ends a line; lines must end with CRLF.")
                }
                let endsRequestLine = byte == .lf && requestLine == nil
                if requestLine == nil, !endsRequestLine, i >= uriTooLongAt {
                    throw HTTPParseError(status: 414, reason: "The request target is longer than \(limits.maxURILength) bytes.")
                }
                // The limit leaves out the final empty line, so a head that fits has at most
                // maxHeaderBytes + 2 bytes, and maxHeaderBytes + 1 before its last one.
                if i >= headTooLongAt { throw Self.headTooLong(limits) }
                if endsRequestLine { requestLine = try RequestLine(buffer[start..<(i - 1)], limits: limits) }
                // Judged here for the next position, before that position's length checks.
                if byte == .cr, i + 1 < limit, buffer[i + 1] != .lf { throw Self.bareCR }
                i += 1
                // The LF that follows a CR is judged here rather than searched for again (two
                // memchr(3) calls a line). Its checks are those above for an LF after a CR: it is
                // no bare LF, and it ends a request line, which is therefore not too long.
                if byte == .cr, i < limit {
                    if i >= headTooLongAt { throw Self.headTooLong(limits) }
                    if requestLine == nil { requestLine = try RequestLine(buffer[start..<(i - 1)], limits: limits) }
                    i += 1
                }
            }
        }
    }

    private static let bareCR = HTTPParseError.bad("A bare CR appears in the request head.")

    static func headTooLong(_ limits: HTTPLimits) -> HTTPParseError {
        HTTPParseError(status: 431, reason: "The request header section is larger than \(limits.maxHeaderBytes) bytes.")
    }

    /// Enters the state that reads the body the head announced.
    private mutating func beginBody(_ head: HTTPRequestHead, _ framing: BodyFraming) -> HTTPParserEvent? {
        announcedHead = false
        switch framing {
        case .none:
            return finish(head, body: [])
        case .length(let length):
            state = .fixedBody(head, length: length)
        case .chunked:
            chunkedBody = []
            state = .chunkSize(head)
        }
        return nil
    }

    /// Emits the head once when the client waits for `100 Continue`.
    private mutating func announce(_ head: HTTPRequestHead) -> HTTPParserEvent? {
        guard head.expectsContinue, !announcedHead else { return nil }
        announcedHead = true
        return .head(head)
    }

    private mutating func finish(_ head: HTTPRequestHead, body: [UInt8]) -> HTTPParserEvent {
        state = .head
        announcedHead = false
        return .request(HTTPRequest(head: head, body: body))
    }

    /// Takes one CRLF-terminated line (without the CRLF), or nil if it has not fully arrived.
    /// Bytes are judged in order and only once, as in ``scanHead(from:to:)``.
    private mutating func takeLine(limit: Int, what: String) throws(HTTPParseError) -> ArraySlice<UInt8>? {
        var i = start + lineScanned
        while i < buffer.count {
            let byte = buffer[i]
            if byte == .lf {
                guard i > start, buffer[i - 1] == .cr else { throw .bad("A bare LF ends a line in the \(what).") }
                let line = buffer[start..<i - 1]
                start = i + 1
                lineScanned = 0
                return line
            }
            if i > start, buffer[i - 1] == .cr { throw .bad("A bare CR appears in the \(what).") }
            // A CR here could still end a line of `limit` bytes; anything else makes it longer.
            if i - start > limit { throw Self.tooLong(what, limit: limit) }
            i += 1
        }
        lineScanned = i - start
        return nil
    }

    private static func tooLong(_ what: String, limit: Int) -> HTTPParseError {
        what == "trailer section"
            ? HTTPParseError(status: 431, reason: "The trailer section is too large.")
            : .bad("The \(what) is longer than \(limit) bytes.")
    }

    static func bodyTooLarge(_ limits: HTTPLimits) -> HTTPParseError {
        HTTPParseError(status: 413, reason: "The request body is larger than \(limits.maxBodyBytes) bytes.")
    }
}

extension UInt8 {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
}
