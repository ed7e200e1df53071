import TestSupport
import Testing
@testable import ConfigCore

@Suite struct ConditionsPercentTests {
    /// SHA-256 of `seed + "." + id` (or `id`), big-endian, mod 10^8: computed independently
    /// from the algorithm; the first eleven are also the Admin SDK's cross-SDK vectors.
    @Test(arguments: [
        ("1", "one", 64_146_488),
        ("2", "two", 76_516_209),
        ("3", "three", 6_701_947),
        ("4", "four", 85_000_289),
        ("5", "five", 2_514_745),
        ("", "😊", 9_911_325),
        ("", "😀", 62_040_281),
        ("hêl£o", "wørlÐ", 67_411_682),
        ("řemøťe", "çōnfįġ", 19_728_496),
        ("long", String(repeating: ".", count: 100), 39_278_120),
        ("very-long", String(repeating: ".", count: 1000), 71_699_042),
        ("", "fid-1", 66_201_432),
        ("my_seed", "cAbC123xYz", 9_789_753),
        ("model-rollout", "eXaMpLe-InStAnCe-Id", 46_250_215),
        ("a", "b", 40_432_436),
        ("", "a", 56_493_499),
        ("seed.with.dots", "id", 12_821_969),
    ] as [(String, String, UInt64)])
    func microPercentile(_ seed: String, _ id: String, _ expected: UInt64) {
        #expect(PercentBucket.microPercentile(seed: seed, randomizationId: id) == expected)
    }

    /// Over 100,000 instance ids, `percent <= p` takes p % of them within one percentage point
    /// for every whole p, seeded or not. (That an id keeps its bucket is pinned by the vectors
    /// above.)
    @Test(arguments: ["", "rollout-7"])
    func bucketsAreUniform(_ seed: String) {
        var perPercent = [Int](repeating: 0, count: 100)
        for index in 0..<100_000 {
            let bucket = PercentBucket.microPercentile(seed: seed, randomizationId: "fid-\(index)")
            perPercent[Int(bucket / 1_000_000)] += 1
        }
        var below = 0
        for percent in 1...100 {
            below += perPercent[percent - 1]
            #expect(abs(below - percent * 1_000) <= 1_000, "percent <= \(percent) took \(below) of 100,000")
        }
    }

    @Test func seedIsJoinedWithADot() {
        #expect(PercentBucket.microPercentile(seed: "a", randomizationId: "b")
                == PercentBucket.microPercentile(seed: "", randomizationId: "a.b"))
    }

    /// The Node unit test: BETWEEN 0 and 50 000 000 for each vector.
    @Test(arguments: PercentVectors.lowerHalf)
    func halfOfAllClients(_ vector: PercentVectors.Vector) throws {
        let rule = PercentRule(.between, lowerBound: 0, upperBound: 50_000_000)
        #expect(rule.matches(seed: vector.seed, randomizationId: vector.randomizationId) == vector.inLowerHalf)
        // Server templates only allow seeds of [-_.0-9a-zA-Z].
        guard PercentRule.isValidSeed(vector.seed) else { return }
        let condition = try ServerCondition(json: Self.lowerHalf(seed: vector.seed))
        #expect(condition.evaluate(in: EvaluationContext(appInstanceId: vector.randomizationId)) == vector.inLowerHalf)
    }

    /// `BETWEEN 0 and 50 000 000` with `seed`, as a structured server condition.
    static func lowerHalf(seed: String) -> JSONValue {
        .object(["percent": .object([
            "percentOperator": .string("BETWEEN"), "seed": .string(seed),
            "microPercentRange": .object(["microPercentLowerBound": .number(0),
                                          "microPercentUpperBound": .number(50_000_000)]),
        ])])
    }

    @Test func boundsOfEachOperator() {
        // 6 701 947 is the bucket of seed "3", id "three".
        let at = UInt64(6_701_947)
        #expect(PercentRule(.lessOrEqual, microPercent: at).contains(at))
        #expect(!PercentRule(.lessOrEqual, microPercent: at - 1).contains(at))
        #expect(PercentRule(.greaterThan, microPercent: at - 1).contains(at))
        #expect(!PercentRule(.greaterThan, microPercent: at).contains(at))
        #expect(PercentRule(.between, lowerBound: at - 1, upperBound: at).contains(at))
        #expect(!PercentRule(.between, lowerBound: at, upperBound: at + 1).contains(at))
        #expect(!PercentRule(.unknown, microPercent: 100_000_000).contains(at))
        #expect(!PercentRule(nil, microPercent: 100_000_000).contains(at))
    }

    @Test func missingRandomizationIdIsFalse() {
        let everyone = PercentRule(.lessOrEqual, microPercent: 100_000_000)
        #expect(everyone.matches(seed: "", randomizationId: "x"))
        #expect(!everyone.matches(seed: "", randomizationId: nil))
        #expect(!everyone.matches(seed: "", randomizationId: ""))
    }

    @Test func seedValidation() {
        #expect(PercentRule.isValidSeed(""))
        #expect(PercentRule.isValidSeed("Az09-_."))
        #expect(PercentRule.isValidSeed(String(repeating: "s", count: 32)))
        #expect(!PercentRule.isValidSeed(String(repeating: "s", count: 33)))
        #expect(!PercentRule.isValidSeed("a b"))
        #expect(!PercentRule.isValidSeed("hêl£o"))
    }
}
