/// A custom-signal operator with its targets, checked once and compiled for evaluation.
///
/// Semantics (protocol notes §5.4, the recommended column): string operators hold when **any**
/// target matches (`STRING_DOES_NOT_CONTAIN`: when no target is a substring); they compare
/// Unicode text exactly and case-sensitively. `STRING_EXACTLY_MATCHES` trims whitespace on both
/// sides first. `STRING_CONTAINS_REGEX` is an RE2 partial match (false for values over 250
/// characters, Firebase's limit for signals used with regular expressions). Numeric and version operators
/// compare the client's value with the single target; a client value that is not a number or
/// not a version makes them false (so `NOT_EQUAL` is false too). No targets: always false.
struct SignalMatcher: Sendable {
    /// A target that cannot be used with the operator.
    struct InvalidTarget: Error, Equatable {
        /// Index into the targets.
        let index: Int
        let message: String
    }

    let signalOperator: CustomSignalOperator
    let targets: [String]
    private let test: Test

    private enum Test: Sendable {
        case never
        case contains([String])
        case doesNotContain([String])
        case exactlyMatches([Substring])
        case regex([LinearRegex])
        case number(ComparisonOperator, Double)
        case version(ComparisonOperator, VersionNumber)
    }

    init(_ signalOperator: CustomSignalOperator, targets: [String]) throws(InvalidTarget) {
        self.signalOperator = signalOperator
        self.targets = targets
        if targets.count > CustomSignalOperator.maxTargets {
            throw InvalidTarget(index: CustomSignalOperator.maxTargets,
                                message: "more than \(CustomSignalOperator.maxTargets) target values")
        }
        if signalOperator.takesSingleTarget, targets.count > 1 {
            throw InvalidTarget(index: 1, message: "\(signalOperator.rawValue) takes exactly one target value")
        }
        guard let first = targets.first else {
            test = .never
            return
        }
        if let comparison = signalOperator.numericComparison {
            guard let number = DecimalNumber.parse(first) else {
                throw InvalidTarget(index: 0, message: "'\(first)' is not a number")
            }
            test = .number(comparison, number)
        } else if let comparison = signalOperator.versionComparison {
            guard let version = VersionNumber(first) else {
                throw InvalidTarget(index: 0, message: "'\(first)' is not a version (1 to 5 dot-separated numbers)")
            }
            test = .version(comparison, version)
        } else {
            switch signalOperator {
            case .stringContains: test = .contains(targets)
            case .stringDoesNotContain: test = .doesNotContain(targets)
            case .stringExactlyMatches: test = .exactlyMatches(targets.map(Text.trimmed))
            case .stringContainsRegex:
                var patterns: [LinearRegex] = []
                for (index, target) in targets.enumerated() {
                    do {
                        patterns.append(try LinearRegex(target))
                    } catch {
                        throw InvalidTarget(index: index, message: "invalid regular expression '\(target)': "
                                            + "\(error.message) at offset \(error.offset)")
                    }
                }
                test = .regex(patterns)
            default: test = .never
            }
        }
    }

    /// Whether the client's value `actual` satisfies the operator.
    func matches(_ actual: String) -> Bool {
        switch test {
        case .never:
            return false
        case .contains(let targets):
            return targets.contains { Text.contains(actual, $0) }
        case .doesNotContain(let targets):
            return !targets.contains { Text.contains(actual, $0) }
        case .exactlyMatches(let targets):
            let trimmed = Text.trimmed(actual)
            return targets.contains { Text.equal(trimmed, $0) }
        case .regex(let patterns):
            return patterns.contains { $0.matches(in: actual) }
        case .number(let comparison, let target):
            guard let value = DecimalNumber.parse(actual) else { return false }
            return comparison.holds(value, target)
        case .version(let comparison, let target):
            guard let value = VersionNumber(actual) else { return false }
            return comparison.holds(value, target)
        }
    }
}
