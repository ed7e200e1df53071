import HTTP1
import Testing

/// Inputs on which Fuzz/HTTPParserFuzz.swift found the parser breaking an invariant, kept
/// byte for byte (`\\xNN` marks a byte that is not UTF-8). Each must now give one answer,
/// reason included, however it is split.
@Suite struct HTTPParserFuzzRegressionTests {
    /// The fuzzer's small limits, which reach the 413/414/431 paths with short inputs.
    static let tight = HTTPLimits(maxHeaderBytes: 200, maxHeaderCount: 6, maxURILength: 40, maxBodyBytes: 64)

    /// `text` as bytes, with each `\xNN` replaced by that byte.
    static func bytes(_ text: String) -> [UInt8] {
        let utf8 = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "\\"), i + 3 < utf8.count, utf8[i + 1] == UInt8(ascii: "x"),
               let byte = UInt8(String(decoding: utf8[i + 2...i + 3], as: UTF8.self), radix: 16) {
                out.append(byte)
                i += 4
            } else {
                out.append(utf8[i])
                i += 1
            }
        }
        return out
    }

    func failure(_ text: String, limits: HTTPLimits) -> Int? {
        guard let outcome = ParserHarness.outcome(Self.bytes(text), limits: limits) else {
            Issue.record("slicings disagree")
            return nil
        }
        guard case .failed(let status, let after) = outcome else { return nil }
        #expect(after.isEmpty)
        return status
    }

    /// Fed whole, a bare LF in the request line was found by the head parser, fed in pieces by
    /// the arrival check: two different messages for one request.
    @Test func bareLFInTheRequestLine() {
        let input = "POST /v1/pr\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nContent-Length: 58\r\n\r\n{\"appInstanceId\":\"i1\",\"appId\":\"1:12345678901on/json\r\nContent-Length: 58\r\n\r\n{\"appInstanceId\":\"i1\",\"appId\":\"1:123456789012:ios:ab\",\"x\":1}"
        #expect(failure(input, limits: HTTPLimits()) == 400)
        #expect(failure(input, limits: Self.tight) == 400)
    }

    /// A bare CR just past the header limit: 400 when whole, 431 byte by byte. The size check
    /// now fires at the same byte in both. The input as found has a request line with control
    /// bytes in its method, which is now refused when that line ends, before either byte; the
    /// same bare CR behind a valid request line still meets the size check first.
    @Test func bareCRJustPastTheHeaderLimit() {
        let input = "POS\u{4}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}Hs/?23456789012/famespa/1.1\r\nHost: a\r\nAuthori\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}Hs/?23456789012/famespa/1.1\r\nHost: a\r\nAuthorizationDefaultIndev-adm1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: appl2761\r\nConteon\r\nCont61\r394506:ios:ab\",\"x\":1}"
        #expect(failure(input, limits: HTTPLimits()) == 400)
        #expect(failure(input, limits: Self.tight) == 400)
        // maxHeaderBytes is 200: byte 201 is the first one past it.
        let head = "GET / HTTP/1.1\r\nHost: a\r\nX: "
        for (bareCRAt, status) in [(201, 431), (200, 400)] {
            let text = head + String(repeating: "a", count: bareCRAt - head.utf8.count) + "\rb"
            #expect(failure(text, limits: Self.tight) == status, "bare CR at \(bareCRAt)")
        }
    }

    /// HTTP/1.2 was accepted as minor version 2, which skipped the HTTP/1.1 rules (Host).
    @Test func higherMinorVersionIsHTTP11() throws {
        let input = "PUT /v1/projects/example-project/remoteConfig HTTP/1.2\r\nHost: a\r\nAuthorization: Bearer deKKKKKKKKKKKKKKKKKKKKKKngth\r\nTranefsr-Encoding: chunked\r\n\r\n6;\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}Hue\r\n{\"par\r\n1\r\n \r\nA\r\n0123456780\n9X@-\r\nTrailer: yes\r\n\r\n"
        let outcome = try #require(ParserHarness.outcome(Self.bytes(input)))
        guard case .failed(400, let after) = outcome else {
            Issue.record("expected a 400 after one request, got \(outcome)")
            return
        }
        #expect(after.map(\.head.minorVersion) == [1])
        #expect(ParserHarness.outcome("GET / HTTP/1.2\r\n\r\n") == .failed(status: 400, after: []), "no Host")
        guard case .requests(let parsed) = ParserHarness.outcome("GET / HTTP/1.9\r\nHost: a\r\n\r\n") else {
            Issue.record("HTTP/1.9 refused")
            return
        }
        #expect(parsed.map(\.head.minorVersion) == [1])
    }

    /// Skipping a leading empty line left the scan position stale, so the bare LF after it
    /// went unnoticed when the bytes came in pieces.
    @Test func bareLFAfterALeadingEmptyLine() {
        #expect(failure("\r\n\nPO\\xef\\xff\\xff\\xffmPO\\xef\\xff\\xff\\xffm\r\nCo\u{1}", limits: HTTPLimits()) == 400)
        #expect(failure("\r\n\r\n\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", limits: HTTPLimits()) == 400)
    }

    /// A trailer line with a bare CR and, later, a bare LF beyond the limit: the limit won when
    /// the line came byte by byte, the bare LF when it came whole. Now the bare CR, first, wins.
    @Test func bareCRInALongTrailerLine() {
        let input = "GET / HTTP/1.1\r\nHost: a\r\nContent-L-ngth: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\\xa8`````````````````````````````````````````````````````````````````````````````````````\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}thorization: Bease\\xe2 de\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}%\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\n"
        #expect(failure(input, limits: HTTPLimits()) == 400)
        #expect(failure(input, limits: Self.tight) == 400)
    }

    /// A head of exactly the limit is accepted however it arrives; one byte more is 431.
    @Test func headAtExactlyTheLimit() throws {
        let limits = HTTPLimits(maxHeaderBytes: 40)
        // Lines with their CRLFs: 16 + 9 + 15 = 40 bytes, then the empty line.
        let head = "GET / HTTP/1.1\r\nHost: a\r\nX: "
        let fits = try #require(ParserHarness.outcome(head + String(repeating: "y", count: 10) + "\r\n\r\n", limits: limits))
        guard case .requests(let parsed) = fits else {
            Issue.record("a head of exactly the limit was refused: \(fits)")
            return
        }
        #expect(parsed.count == 1)
        #expect(ParserHarness.outcome(head + String(repeating: "y", count: 11) + "\r\n\r\n", limits: limits) == .failed(status: 431, after: []))
    }
}
