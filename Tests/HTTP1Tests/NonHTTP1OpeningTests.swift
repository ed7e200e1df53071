import HTTP1
import Testing

/// Openings that can never become an HTTP/1.x request are refused as soon as they show it —
/// at their first byte, or at the end of their request line — not once a head end arrives
/// (which such a client may never send). Each input is fed whole, byte by byte and split at
/// random, and must fail the same way, reason included, however it arrives.
@Suite struct NonHTTP1OpeningTests {
    /// The parser's error for `bytes`, or nil when it waits for more; records an issue when
    /// the slicings disagree.
    private func refusal(_ bytes: [UInt8]) -> HTTPParseError? {
        guard let outcome = ParserHarness.outcome(bytes) else {
            Issue.record("slicings disagree")
            return nil
        }
        guard case .failed(_, let after) = outcome else { return nil }
        #expect(after.isEmpty)
        return ParserHarness.run(bytes, splits: []).error
    }

    private func refusal(_ text: String) -> HTTPParseError? {
        refusal(Array(text.utf8))
    }

    /// The start of a TLS 1.2/1.3 ClientHello: handshake record (0x16), version 3.1, length,
    /// ClientHello (1), its length, client version 3.3, then random bytes.
    static let clientHello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03]
        + (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

    @Test func aTLSHandshakeIsRefusedAtItsFirstByte() throws {
        for input in [Self.clientHello, [0x16], Array("\r\n".utf8) + Self.clientHello] {
            let error = try #require(refusal(input))
            #expect(error.status == 400)
            #expect(error.reason.contains("TLS"))
        }
    }

    /// A request starts with a method token (RFC 9112 §3.1), after optional empty lines
    /// (§2.2): any other first byte is refused alone. CR may begin an empty line and waits;
    /// a first LF is a bare LF.
    @Test func everyFirstByteThatCannotStartAMethodIsRefusedAlone() {
        let tokenBytes = Set(Array("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8))
        for byte in UInt8.min...UInt8.max {
            let error = refusal([byte])
            if tokenBytes.contains(byte) || byte == UInt8(ascii: "\r") {
                #expect(error == nil, "byte \(byte) was refused: \(String(describing: error))")
            } else {
                #expect(error?.status == 400, "byte \(byte) was not refused")
            }
        }
    }

    @Test(arguments: [
        ("GET /\r\n", 400, "HTTP/0.9"),
        ("GET\r\n", 400, "HTTP/0.9"),
        ("GET / HTTP/2.0\r\n", 505, "HTTP/1.0 and HTTP/1.1"),
        ("GET / HTTP/1.x\r\n", 400, "version is malformed"),
        ("GET / HTTP/1.1garbage\r\n", 400, "version is malformed"),
        ("GET / HTTP/1.1 \r\n", 400, "contains spaces"),
        ("GET / HTTPS/1.1\r\n", 400, "version is malformed"),
        ("G@T / HTTP/1.1\r\n", 400, "method"),
        ("GET noslash HTTP/1.1\r\n", 400, "must start with '/'"),
        ("\r\n\r\nGET /\r\n", 400, "HTTP/0.9"),
    ])
    func aRequestLineIsJudgedWhenItEnds(_ text: String, _ status: Int, _ reason: String) throws {
        let error = try #require(refusal(text), "\(text.debugDescription) was not refused before its head ended")
        #expect(error.status == status)
        #expect(error.reason.contains(reason), "\(error.reason)")
    }

    /// The HTTP/2 connection preface (RFC 9113 §3.4) keeps its 505, now given at the end of
    /// its first line.
    @Test func theHTTP2PrefaceGets505() throws {
        for text in ["PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "PRI * HTTP/2.0\r\n"] {
            let error = try #require(refusal(text))
            #expect(error == HTTPParseError(status: 505, reason: "Only HTTP/1.0 and HTTP/1.1 are supported."))
        }
    }

    /// The first problem in arrival order wins: a bad request line before a bare LF in a
    /// field, a bare LF in the request line before the line's own checks.
    @Test func theFirstProblemWins() throws {
        #expect(try #require(refusal("GET /\r\nX\n")).reason.contains("HTTP/0.9"))
        #expect(try #require(refusal("G@T /\nX")).reason.contains("bare LF"))
        #expect(try #require(refusal("\n")).reason.contains("bare LF"))
    }

    /// Prefixes of valid requests wait for the rest.
    @Test(arguments: ["\r", "\r\n", "\r\n\r\nG", "GET", "GET / HTTP/1.1", "GET / HTTP/1.1\r", "GET / HTTP/1.1\r\n",
                      "GET / HTTP/1.1\r\nHost: a\r\n", "OPTIONS * HTTP/1.1\r\n", "GET http://a/ HTTP/1.0\r\n"])
    func validPrefixesWait(_ text: String) {
        #expect(refusal(text) == nil)
    }

    /// After a complete request, the next one's first byte is judged like the first's.
    @Test func theNextPipelinedRequestIsJudgedToo() {
        let first = Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        let answered = ParserHarness.run(first, splits: []).requests
        #expect(answered.count == 1)
        #expect(ParserHarness.outcome(first + [0x16]) == .failed(status: 400, after: answered))
    }
}
