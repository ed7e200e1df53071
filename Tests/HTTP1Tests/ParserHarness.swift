import HTTP1
import TestSupport

/// Feeds a parser the same input in different slicings (whole, byte by byte, random splits)
/// and checks every slicing yields the same outcome, down to the error's reason.
enum ParserHarness {
    enum Outcome: Equatable {
        case requests([HTTPRequest])
        case failed(status: Int, after: [HTTPRequest])
    }

    /// Everything one slicing produced.
    struct Run: Equatable {
        var requests: [HTTPRequest] = []
        var error: HTTPParseError?
        var isMidRequest = false

        var outcome: Outcome {
            error.map { .failed(status: $0.status, after: requests) } ?? .requests(requests)
        }
    }

    /// Feeds `input` in pieces ending at `splits`; `release` frees the buffer between pieces
    /// as the server's connections do.
    static func run(_ input: [UInt8], limits: HTTPLimits = HTTPLimits(), splits: [Int], release: Bool = false) -> Run {
        var parser = HTTPRequestParser(limits: limits)
        var result = Run()
        var offset = 0
        var cuts = splits.filter { $0 > 0 && $0 < input.count }.sorted()
        cuts.append(input.count)
        for cut in cuts where cut > offset {
            parser.append(Array(input[offset..<cut]))
            offset = cut
            do {
                while let event = try parser.next() {
                    if case .request(let request) = event { result.requests.append(request) }
                }
            } catch {
                result.error = error
                return result
            }
            if release { parser.releaseBufferIfEmpty() }
        }
        result.isMidRequest = parser.isMidRequest
        return result
    }

    /// The outcome, after checking whole, byte-by-byte and seeded random splits agree.
    static func outcome(_ input: [UInt8], limits: HTTPLimits = HTTPLimits()) -> Outcome? {
        let whole = run(input, limits: limits, splits: [])
        let byteByByte = run(input, limits: limits, splits: Array(0..<input.count))
        guard whole == byteByByte else { return nil }
        var generator = SplitMix64(seed: UInt64(input.count))
        for round in 0..<8 {
            let splits = (0..<4).map { _ in Int(generator.next() % UInt64(max(input.count, 1))) }
            guard run(input, limits: limits, splits: splits, release: round % 2 == 0) == whole else { return nil }
        }
        return whole.outcome
    }

    static func outcome(_ text: String, limits: HTTPLimits = HTTPLimits()) -> Outcome? {
        outcome(Array(text.utf8), limits: limits)
    }
}

