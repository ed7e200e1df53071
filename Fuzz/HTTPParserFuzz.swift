// libFuzzer target for the HTTP/1.1 request parser (Sources/HTTP1), compiled together with
// that module's sources by scripts/fuzz. Besides crashes it checks invariants and stops with
// fatalError (a crash to libFuzzer) when one breaks:
//
// - the same bytes fed whole, byte by byte, or cut at pseudo-random points give the same
//   requests, the same error and the same final state;
// - an accepted request is unambiguous: never Content-Length with Transfer-Encoding, only
//   `chunked`, one Host on HTTP/1.1, a body exactly as long as Content-Length says, within limits;
// - a failed parser stays failed with the same error;
// - an accepted request written out again canonically parses to the same request.

/// Limits small enough that random inputs reach every 413/414/431 path.
let tightLimits = HTTPLimits(maxHeaderBytes: 200, maxHeaderCount: 6, maxURILength: 40, maxBodyBytes: 64)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var random = SplitMix64(seed: fnv1a(input))
    for limits in [HTTPLimits(), tightLimits] {
        let whole = Feed.run(input, cuts: [], limits: limits)
        let byteByByte = Feed.run(input, cuts: Array(0..<input.count), limits: limits)
        expectSame(whole, byteByByte, "byte by byte", input)
        for _ in 0..<3 {
            let cuts = (0..<Int(random.next() % 8 + 1)).map { _ in Int(random.next() % UInt64(input.count + 1)) }
            expectSame(whole, Feed.run(input, cuts: cuts, limits: limits, release: true), "cut at \(cuts.sorted())", input)
        }
        for request in whole.requests {
            Invariants.verify(request, limits: limits)
            Invariants.roundTrip(request, limits: limits)
        }
    }
    return 0
}

/// What feeding one input produced.
struct Outcome: Equatable {
    var requests: [HTTPRequest] = []
    var error: HTTPParseError?
    var isMidRequest = false
    var isReadingBody = false
}

enum Feed {
    /// Feeds `input` in pieces ending at `cuts` (and at its end), draining events after each
    /// piece like HTTPConnection does; `release` also frees the buffer between requests.
    static func run(_ input: [UInt8], cuts: [Int], limits: HTTPLimits, release: Bool = false) -> Outcome {
        var parser = HTTPRequestParser(limits: limits)
        var outcome = Outcome()
        var announced: HTTPRequestHead?
        var offset = 0
        for cut in Set(cuts + [input.count]).sorted() where cut > offset && cut <= input.count {
            input[offset..<cut].withUnsafeBytes { parser.append($0) }
            offset = cut
            do {
                while let event = try parser.next() {
                    switch event {
                    case .head(let head):
                        check(head.expectsContinue && announced == nil, "a head event without Expect or twice", input)
                        announced = head
                    case .request(let request):
                        check(announced == nil || announced == request.head, "request differs from its announced head", input)
                        announced = nil
                        outcome.requests.append(request)
                    }
                }
            } catch {
                outcome.error = error
                // Failed stays failed, with the same error.
                do {
                    _ = try parser.next()
                    fail("parser recovered after \(error)", input)
                } catch {
                    check(error == outcome.error, "a second next() threw a different error", input)
                }
                break
            }
            if release { parser.releaseBufferIfEmpty() }
        }
        outcome.isMidRequest = parser.isMidRequest
        outcome.isReadingBody = parser.isReadingBody
        return outcome
    }
}

enum Invariants {
    static func verify(_ request: HTTPRequest, limits: HTTPLimits) {
        let head = request.head
        let input = Array("\(head.method) \(head.target)".utf8)
        let lengths = head.headers.values("Content-Length")
        let codings = head.headers.values("Transfer-Encoding")
        check(lengths.isEmpty || codings.isEmpty, "accepted with both Content-Length and Transfer-Encoding", input)
        if !codings.isEmpty {
            check(head.minorVersion == 1 && codings.count == 1 && codings[0].lowercased() == "chunked",
                            "accepted Transfer-Encoding \(codings) on HTTP/1.\(head.minorVersion)", input)
        } else if !lengths.isEmpty {
            // Every item the same decimal number (RFC 9110 §8.6): "2, 02" is one length of 2.
            let items = lengths.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            let values = Set(items.map { item -> Int? in
                let digits = item.filter { $0 != " " && $0 != "\t" }
                return digits.isEmpty || !digits.allSatisfy({ $0 >= "0" && $0 <= "9" }) ? nil : Int(digits)
            })
            check(values.count == 1 && values.first! == request.body.count,
                            "body of \(request.body.count) bytes for Content-Length \(lengths)", input)
        } else {
            check(request.body.isEmpty, "a body without Content-Length or Transfer-Encoding", input)
        }
        check(request.body.count <= limits.maxBodyBytes, "body over the limit", input)
        check(head.headers.count <= limits.maxHeaderCount, "too many headers accepted", input)
        check(head.minorVersion == 0 || head.minorVersion == 1, "HTTP/1.\(head.minorVersion) accepted", input)
        check(head.minorVersion == 0 || head.headers.values("Host").count == 1, "HTTP/1.1 without exactly one Host", input)
        check(head.headers.values("Host").count <= 1, "more than one Host", input)
        check(!head.method.rawValue.isEmpty && head.method.rawValue.utf8.allSatisfy(HeadParser.isTokenByte), "bad method", input)
        check(!head.target.isEmpty && head.target.utf8.count <= limits.maxURILength
                        && head.target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "bad target", input)
        for field in head.headers {
            check(!field.name.isEmpty && field.name.utf8.allSatisfy(HeadParser.isTokenByte), "bad header name", input)
            let value = Array(field.value.utf8)
            check(!value.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 || $0 == 0x7F }, "control byte in a header value", input)
            check(value.first != 0x20 && value.first != 0x09 && value.last != 0x20 && value.last != 0x09,
                            "header value not trimmed", input)
        }
        _ = head.uri  // percent-decoding must not trap on any accepted target
    }

    /// Writes `request` out canonically (a chunked body as Content-Length) and parses it again.
    static func roundTrip(_ request: HTTPRequest, limits: HTTPLimits) {
        var head = request.head
        var text = "\(head.method) \(head.target) HTTP/1.\(head.minorVersion)\r\n"
        if head.headers.contains("Transfer-Encoding") {
            head.headers.remove(name: "Transfer-Encoding")
            head.headers.add(name: "Content-Length", value: String(request.body.count))
        }
        for field in head.headers { text += "\(field.name): \(field.value)\r\n" }
        let bytes = Array((text + "\r\n").utf8) + request.body
        // "name: value" may be longer than the original "name:value", and obs-text bytes in a
        // value (0x80-0xFF) come back as U+FFFD, three bytes each: the limit fits the new head.
        var relaxed = limits
        relaxed.maxHeaderBytes = max(limits.maxHeaderBytes * 2, text.utf8.count) + 64
        let again = Feed.run(bytes, cuts: [], limits: relaxed)
        check(again.error == nil && again.requests == [HTTPRequest(head: head, body: request.body)],
                        "canonical form parses differently: \(again)", bytes)
    }
}

func check(_ condition: Bool, _ message: @autoclosure () -> String, _ input: [UInt8]) {
    if !condition { fail(message(), input) }
}

func expectSame(_ whole: Outcome, _ other: Outcome, _ how: String, _ input: [UInt8]) {
    check(whole == other, "fed whole vs \(how):\n  \(whole)\n  \(other)", input)
}

func fail(_ message: String, _ input: [UInt8]) -> Never {
    fatalError("invariant broken: \(message)\ninput: \(String(decoding: input, as: UTF8.self).debugDescription)")
}

func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
}

