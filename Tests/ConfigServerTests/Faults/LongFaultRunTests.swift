import Foundation
import Testing
import TestSupport

/// The fault harness's long form, run by `scripts/faults` (it sets the variables below; a plain
/// `swift test` leaves it out): `RCS_FAULTS_ROUNDS` scenarios, each a fault and a duration (up to
/// `RCS_FAULTS_MAX_HOLD` seconds, 20 by default) drawn from a seed that the run draws from
/// `RCS_FAULTS_SEED`. Every round prints its own seed: `RCS_FAULTS_SEED=<that> RCS_FAULTS_ROUNDS=1`
/// replays it alone.
@Suite(.serialized) struct LongFaultRunTests {
    static let environment = ProcessInfo.processInfo.environment

    @Test(.enabled(if: environment["RCS_FAULTS_SEED"] != nil, "scripts/faults runs the long form"), .timeLimit(.minutes(600)))
    func randomizedFaultsKeepEveryPromise() throws {
        let seed = try #require(Self.environment["RCS_FAULTS_SEED"].flatMap { UInt64($0) }, "RCS_FAULTS_SEED must be a number")
        let rounds = Self.environment["RCS_FAULTS_ROUNDS"].flatMap { Int($0) } ?? 20
        let maximumHold = Self.environment["RCS_FAULTS_MAX_HOLD"].flatMap { Double($0) } ?? 20
        var random = SplitMix64(seed: seed)
        print("fault run: seed \(seed), \(rounds) rounds, faults held up to \(maximumHold) s")
        for round in 1...max(1, rounds) {
            // The first round replays the run's own seed, so that one seed names one round.
            let roundSeed = round == 1 ? seed : random.next()
            let scenario = FaultScenario.random(seed: roundSeed, maximumHold: maximumHold)
            let outcome = try scenario.run()
            print("fault run round \(round)/\(rounds): \(scenario): \(outcome.summary)")
            #expect(outcome.violations.isEmpty,
                    "round \(round), replay with RCS_FAULTS_SEED=\(roundSeed) RCS_FAULTS_ROUNDS=1: \(outcome.violations.prefix(10))")
        }
    }
}
