import ConfigCore
import Testing

/// The assignment of instances to rollouts and experiment variants: stable, uniform, and
/// monotone in the percent.
@Suite struct InstanceAssignmentTests {
    /// SHA-256 of `id + "." + instance`, big-endian, mod 10^8, computed independently (Python's
    /// hashlib): a change of algorithm would move instances between groups after an upgrade.
    @Test(arguments: [
        ("rollout_3", "fid-1", 71_053_261),
        ("rollout_3", "fid-8", 350_917),
        ("exp_1", "fid-1", 28_834_360),
        ("exp_1.variant", "fid-1", 77_144_692),
        ("exp_1.variant", "fid-2", 7_409_844),
    ] as [(String, String, UInt64)])
    func bucketsArePinned(_ id: String, _ instance: String, _ expected: UInt64) {
        #expect(InstanceAssignment.bucket(id: id, appInstanceId: instance) == expected)
    }

    @Test func variantsFollowTheSecondHash() {
        // 77_144_692 × 2 / 10^8 = 1 and 7_409_844 × 2 / 10^8 = 0.
        #expect(InstanceAssignment.variantIndex(experimentId: "exp_1", variantCount: 2, appInstanceId: "fid-1") == 1)
        #expect(InstanceAssignment.variantIndex(experimentId: "exp_1", variantCount: 2, appInstanceId: "fid-2") == 0)
    }

    /// Over 100,000 ids a rollout at p % takes p % of them within one percentage point, for
    /// every whole p; four variants take a quarter each, within one percentage point.
    @Test func assignmentIsUniform() {
        var perPercent = [Int](repeating: 0, count: 100)
        var perVariant = [Int](repeating: 0, count: 4)
        for index in 0..<100_000 {
            let instance = "instance-\(index)"
            perPercent[Int(InstanceAssignment.bucket(id: "rollout-uniform", appInstanceId: instance) / 1_000_000)] += 1
            perVariant[InstanceAssignment.variantIndex(experimentId: "exp-uniform", variantCount: 4, appInstanceId: instance)] += 1
        }
        var below = 0
        for percent in 1...100 {
            below += perPercent[percent - 1]
            #expect(abs(below - percent * 1_000) <= 1_000, "\(percent) % took \(below) of 100,000")
        }
        for count in perVariant {
            #expect(abs(count - 25_000) <= 1_000, "a variant took \(count) of 100,000")
        }
    }

    /// Raising a rollout from 10 % to 20 % keeps every instance of the first 10 % in, and adds
    /// about as many again.
    @Test func growingTheShareKeepsEveryoneIn() {
        let ten = InstanceAssignment.microPercent(10)
        let twenty = InstanceAssignment.microPercent(20)
        var inAtTen = 0
        var inAtTwenty = 0
        for index in 0..<20_000 {
            let instance = "grow-\(index)"
            let wasIn = InstanceAssignment.isIncluded(id: "rollout-grow", microPercent: ten, appInstanceId: instance)
            let isIn = InstanceAssignment.isIncluded(id: "rollout-grow", microPercent: twenty, appInstanceId: instance)
            #expect(!wasIn || isIn, "\(instance) left the rollout when it grew")
            inAtTen += wasIn ? 1 : 0
            inAtTwenty += isIn ? 1 : 0
        }
        #expect(abs(inAtTen - 2_000) <= 200 && abs(inAtTwenty - 4_000) <= 200)
    }

    @Test func sharesAtTheEdges() {
        #expect(InstanceAssignment.microPercent(0) == 0)
        #expect(InstanceAssignment.microPercent(-3) == 0)
        #expect(InstanceAssignment.microPercent(12.5) == 12_500_000)
        #expect(InstanceAssignment.microPercent(100) == 100_000_000)
        #expect(InstanceAssignment.microPercent(250) == 100_000_000)
        #expect(!InstanceAssignment.isIncluded(id: "r", microPercent: 0, appInstanceId: "fid-8"))
        #expect(InstanceAssignment.isIncluded(id: "r", microPercent: 100_000_000, appInstanceId: "fid-8"))
        #expect(!InstanceAssignment.isIncluded(id: "r", microPercent: 100_000_000, appInstanceId: ""))
        // fid-8's bucket for rollout_3 is 350,917: in at 0.36 %, out at 0.35 %.
        #expect(InstanceAssignment.isIncluded(id: "rollout_3", microPercent: 350_918, appInstanceId: "fid-8"))
        #expect(!InstanceAssignment.isIncluded(id: "rollout_3", microPercent: 350_917, appInstanceId: "fid-8"))
    }
}
