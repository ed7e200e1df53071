/// Which of a template's conditions are true for one client: a bitset in condition order,
/// followed by the client's rollout and experiment assignments (`CompiledTemplate` knows where).
///
/// Two clients with equal outcomes get equal values from the same compiled template, so this
/// value (with the template version) can key a cache of rendered fetch answers. Up to 64
/// bits fit inline without allocating.
public struct ConditionOutcomes: Sendable, Hashable, CustomStringConvertible {
    /// Number of conditions.
    public let count: Int
    private var head: UInt64 = 0
    /// Words for conditions 64 and up; empty for small templates.
    private var tail: [UInt64]

    /// `count` outcomes, all false.
    public init(count: Int) {
        precondition(count >= 0, "negative condition count")
        self.count = count
        tail = Array(repeating: 0, count: count > 64 ? (count - 1) / 64 : 0)
    }

    /// Outcomes given in condition order, e.g. `[true, false]` for a template with two conditions.
    public init(_ outcomes: [Bool]) {
        self.init(count: outcomes.count)
        for (index, outcome) in outcomes.enumerated() where outcome {
            self[index] = true
        }
    }

    /// Whether condition `index` is true.
    public subscript(index: Int) -> Bool {
        get {
            precondition(index >= 0 && index < count, "condition index out of range")
            let word = index < 64 ? head : tail[index / 64 - 1]
            return word & (1 << UInt64(index % 64)) != 0
        }
        set {
            precondition(index >= 0 && index < count, "condition index out of range")
            let bit: UInt64 = 1 << UInt64(index % 64)
            if index < 64 {
                head = newValue ? head | bit : head & ~bit
            } else {
                tail[index / 64 - 1] = newValue ? tail[index / 64 - 1] | bit : tail[index / 64 - 1] & ~bit
            }
        }
    }

    /// `10` for `[true, false]`.
    public var description: String {
        String((0..<count).map { self[$0] ? "1" : "0" })
    }
}
