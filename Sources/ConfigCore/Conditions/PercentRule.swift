/// The comparison of a percent condition, in micro-percent (protocol notes §5.3, step 5).
struct PercentRule: Sendable, Hashable {
    /// `percentOperator` of server templates.
    enum Operator: String, Sendable, Hashable {
        case lessOrEqual = "LESS_OR_EQUAL"
        case greaterThan = "GREATER_THAN"
        case between = "BETWEEN"
        case unknown = "UNKNOWN"
    }

    /// `nil` when the condition names no operator: it never matches.
    let percentOperator: Operator?
    /// Bound of `LESS_OR_EQUAL` and `GREATER_THAN`.
    let microPercent: UInt64
    /// Exclusive lower bound of `BETWEEN`.
    let lowerBound: UInt64
    /// Inclusive upper bound of `BETWEEN`.
    let upperBound: UInt64

    init(_ percentOperator: Operator?, microPercent: UInt64 = 0, lowerBound: UInt64 = 0, upperBound: UInt64 = 0) {
        self.percentOperator = percentOperator
        self.microPercent = microPercent
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }

    /// Whether a client at `microPercentile` (from `PercentBucket`) is inside.
    func contains(_ microPercentile: UInt64) -> Bool {
        switch percentOperator {
        case .lessOrEqual: microPercentile <= microPercent
        case .greaterThan: microPercentile > microPercent
        case .between: lowerBound < microPercentile && microPercentile <= upperBound
        case .unknown, nil: false
        }
    }

    /// Whether some client can be inside: false without an operator or with an unknown one.
    var canMatch: Bool { percentOperator != nil && percentOperator != .unknown }

    /// Evaluates the rule for a client; no randomization id means false (§5.3, step 1).
    func matches(seed: String, randomizationId: String?) -> Bool {
        guard canMatch, let randomizationId, !randomizationId.isEmpty else { return false }
        return contains(PercentBucket.microPercentile(seed: seed, randomizationId: randomizationId))
    }

    /// Whether `seed` is a valid percent seed: 0 to 32 of `[-_.0-9a-zA-Z]` (§2.9).
    static func isValidSeed(_ seed: String) -> Bool {
        seed.utf8.count <= 32 && seed.utf8.allSatisfy { byte in
            ASCII.isDigit(byte) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }
}
