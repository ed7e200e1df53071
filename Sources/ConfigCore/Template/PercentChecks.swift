/// The volatile conditions of a template that are one client-template percent rule
/// (`percent('seed') between 10 and 35`, the rollout's usual form), kept as plain data: their
/// seeds packed in one byte buffer, their comparisons by value. A fetch evaluates them over the
/// client's id bytes, read once, instead of walking each condition's tree, which copies its
/// nodes and seed on the way. The bucket and the comparison are `PercentRule`'s and
/// `PercentBucket`'s own, so the outcomes are those of ``CompiledCondition/evaluate(in:)``.
struct PercentChecks: Sendable {
    private struct Check: Sendable {
        /// The condition's index, its bit in the outcomes.
        let condition: Int
        /// Where its seed is in `seeds`; nil for a rule naming none (the project's default seed).
        let seed: Range<Int>?
        let rule: PercentRule
    }

    private let checks: [Check]
    private let seeds: [UInt8]
    /// The volatile conditions of another form, evaluated one by one.
    let others: [Int]

    init(conditions: [CompiledCondition], volatile: [Int]) {
        var checks: [Check] = []
        var seeds: [UInt8] = []
        var others: [Int] = []
        for index in volatile {
            guard case .expression(.rule(.percent(let seed, let rule), _)) = conditions[index] else {
                others.append(index)
                continue
            }
            guard let seed else {
                checks.append(Check(condition: index, seed: nil, rule: rule))
                continue
            }
            let start = seeds.count
            seeds.append(contentsOf: seed.utf8)
            checks.append(Check(condition: index, seed: start..<seeds.count, rule: rule))
        }
        self.checks = checks
        self.seeds = seeds
        self.others = others
    }

    /// Sets the outcome of every check that holds for the client `id` (`clientInstanceId`);
    /// none holds without an id (§5.3, step 1).
    func evaluate(into outcomes: inout ConditionOutcomes, id: String?, defaultSeed: String) {
        guard !checks.isEmpty, let id, !id.isEmpty else { return }
        id.withUTF8Bytes { id in
            defaultSeed.withUTF8Bytes { defaultSeed in
                seeds.withUnsafeBufferPointer { seeds in
                    checks.withUnsafeBufferPointer { checks in
                        // A rule that can never match (no operator, or an unknown one) stays false, unhashed.
                        for check in checks where check.rule.canMatch {
                            let seed = check.seed.map { UnsafeBufferPointer(rebasing: seeds[$0]) } ?? defaultSeed
                            if check.rule.contains(PercentBucket.microPercentile(seed, id)) { outcomes[check.condition] = true }
                        }
                    }
                }
            }
        }
    }
}
