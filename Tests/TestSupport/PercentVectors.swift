/// The Admin SDKs' cross-SDK percent vectors (protocol notes §5.3, from the Node unit test
/// "known percent condition values"): for each seed and randomization id, whether the client
/// falls in `BETWEEN 0 and 50 000 000` micro-percent, i.e. the lower half.
public enum PercentVectors {
    public struct Vector: Sendable, CustomStringConvertible {
        public let seed: String
        public let randomizationId: String
        public let inLowerHalf: Bool

        public var description: String { "seed \(seed.debugDescription), id \(randomizationId.prefix(12).debugDescription)" }
    }

    public static let lowerHalf: [Vector] = [
        Vector(seed: "1", randomizationId: "one", inLowerHalf: false),
        Vector(seed: "2", randomizationId: "two", inLowerHalf: false),
        Vector(seed: "3", randomizationId: "three", inLowerHalf: true),
        Vector(seed: "4", randomizationId: "four", inLowerHalf: false),
        Vector(seed: "5", randomizationId: "five", inLowerHalf: true),
        Vector(seed: "", randomizationId: "😊", inLowerHalf: true),
        Vector(seed: "", randomizationId: "😀", inLowerHalf: false),
        Vector(seed: "hêl£o", randomizationId: "wørlÐ", inLowerHalf: false),
        Vector(seed: "řemøťe", randomizationId: "çōnfįġ", inLowerHalf: true),
        Vector(seed: "long", randomizationId: String(repeating: ".", count: 100), inLowerHalf: true),
        Vector(seed: "very-long", randomizationId: String(repeating: ".", count: 1000), inLowerHalf: false),
    ]
}
