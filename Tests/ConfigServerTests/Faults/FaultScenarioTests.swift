import Foundation
import Testing

/// The fault harness's short form: each fault once, with a fixed seed, on two real nodes
/// (two workers each) and a PostgreSQL cluster of their own, under the full workload; the
/// history checker must find nothing. `scripts/faults` runs the long, randomized form.
@Suite(.serialized, .timeLimit(.minutes(2))) struct FaultScenarioTests {
    static let scenarios = FaultScenario.Fault.allCases.enumerated().map { FaultScenario($1, seed: 32 + UInt64($0)) }

    @Test(arguments: scenarios) func theHistoryKeepsEveryPromise(_ scenario: FaultScenario) throws {
        let outcome = try scenario.run()
        print("fault scenario \(scenario): \(outcome.summary)")
        if ProcessInfo.processInfo.environment["RCS_FAULTS_DUMP"] != nil {
            print(outcome.history.faults, outcome.history.operations.filter { $0.kind == .publish }.map(\.description).joined(separator: "\n"))
        }
        #expect(outcome.violations.isEmpty, "\(scenario): \(outcome.violations.prefix(10).joined(separator: "\n"))")
        #expect(outcome.seconds <= 60, "\(scenario) took \(outcome.seconds) s")
    }
}
