import ConfigCore
import Testing

@Suite struct TemplateConditionOutcomesTests {
    @Test func storesOutcomesInOrder() {
        let outcomes = ConditionOutcomes([true, false, true])
        #expect(outcomes.count == 3)
        #expect(outcomes[0] && !outcomes[1] && outcomes[2])
        #expect(outcomes.description == "101")
    }

    @Test(arguments: [0, 1, 63, 64, 65, 127, 128, 130, 2000])
    func everyBitIsIndependent(count: Int) {
        var outcomes = ConditionOutcomes(count: count)
        for index in stride(from: 0, to: count, by: 3) { outcomes[index] = true }
        for index in 0..<count { #expect(outcomes[index] == (index % 3 == 0)) }
        #expect(outcomes == ConditionOutcomes((0..<count).map { $0 % 3 == 0 }))
        if count > 0 {
            outcomes[count - 1] = false
            outcomes[0] = false
            #expect(!outcomes[0] && !outcomes[count - 1])
        }
    }

    @Test func usableAsACacheKey() {
        var bits = Array(repeating: false, count: 100)
        bits[70] = true
        let cache: [ConditionOutcomes: String] = [ConditionOutcomes(bits): "answer"]
        #expect(cache[ConditionOutcomes(bits)] == "answer")
        bits[70] = false
        #expect(cache[ConditionOutcomes(bits)] == nil)
        // Same bits, different template size: different keys.
        #expect(ConditionOutcomes([true]) != ConditionOutcomes([true, false]))
    }

    @Test func outOfRangeTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = ConditionOutcomes(count: 2)[2]
        }
    }
}
