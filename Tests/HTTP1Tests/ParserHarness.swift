import HTTP1

/// Feeds a parser the same input in different slicings (whole, byte by byte, random splits)
/// and checks every slicing yields the same outcome.
enum ParserHarness {
    enum Outcome: Equatable {
        case requests([HTTPRequest])
        case failed(status: Int, after: [HTTPRequest])
    }

    static func run(_ input: [UInt8], limits: HTTPLimits = HTTPLimits(), splits: [Int]) -> Outcome {
        var parser = HTTPRequestParser(limits: limits)
        var requests: [HTTPRequest] = []
        var offset = 0
        var cuts = splits.filter { $0 > 0 && $0 < input.count }.sorted()
        cuts.append(input.count)
        for cut in cuts where cut > offset {
            parser.append(Array(input[offset..<cut]))
            offset = cut
            do {
                while let event = try parser.next() {
                    if case .request(let request) = event { requests.append(request) }
                }
            } catch {
                return .failed(status: error.status, after: requests)
            }
        }
        return .requests(requests)
    }

    /// The outcome, after checking whole, byte-by-byte and seeded random splits agree.
    static func outcome(_ text: String, limits: HTTPLimits = HTTPLimits()) -> Outcome? {
        let input = Array(text.utf8)
        let whole = run(input, limits: limits, splits: [])
        let byteByByte = run(input, limits: limits, splits: Array(0..<input.count))
        guard whole == byteByByte else { return nil }
        var generator = SplitMix(seed: UInt64(input.count))
        for _ in 0..<8 {
            let splits = (0..<4).map { _ in Int(generator.next() % UInt64(max(input.count, 1))) }
            guard run(input, limits: limits, splits: splits) == whole else { return nil }
        }
        return whole
    }
}

/// A tiny deterministic generator so failures reproduce.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
