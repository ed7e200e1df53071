import Testing
@testable import ConfigClient
import TestSupport

@Suite struct BackoffTests {
    @Test func nominalDelayDoublesUpToTheCap() {
        let backoff = Backoff(initial: 1, maximum: 60)
        #expect((0...8).map { backoff.nominalDelay(afterFailures: $0) } == [0, 1, 2, 4, 8, 16, 32, 60, 60])
    }

    @Test func hugeFailureCountsStayAtTheCap() {
        let backoff = Backoff(initial: 2, maximum: 300, multiplier: 3)
        #expect(backoff.nominalDelay(afterFailures: 10_000) == 300)
    }

    @Test(arguments: 1...10)
    func jitterStaysWithinBounds(failures: Int) {
        let backoff = Backoff(initial: 1, maximum: 120, jitter: 0.5)
        let nominal = backoff.nominalDelay(afterFailures: failures)
        var generator = SplitMix64(seed: UInt64(failures))
        let samples = (0..<2_000).map { _ in backoff.delay(afterFailures: failures, using: &generator) }
        #expect(samples.allSatisfy { $0 >= nominal * 0.5 && $0 < nominal * 1.5 })
        // Spread over the range, not one fixed factor.
        #expect(samples.min()! < nominal * 0.6)
        #expect(samples.max()! > nominal * 1.4)
    }

    @Test func noJitterGivesTheNominalDelay() {
        let backoff = Backoff(initial: 3, maximum: 10, jitter: 0)
        var generator = SplitMix64(seed: 1)
        #expect(backoff.delay(afterFailures: 2, using: &generator) == 6)
        #expect(backoff.delay(afterFailures: 0, using: &generator) == 0)
    }
}
