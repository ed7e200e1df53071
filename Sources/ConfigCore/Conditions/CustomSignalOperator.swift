/// How a custom-signal rule compares the client's value with its targets
/// (`customSignalOperator` of server templates, protocol notes §5.4).
public enum CustomSignalOperator: String, Sendable, CaseIterable {
    case unknown = "UNKNOWN"
    case numericLessThan = "NUMERIC_LESS_THAN"
    case numericLessEqual = "NUMERIC_LESS_EQUAL"
    case numericEqual = "NUMERIC_EQUAL"
    case numericNotEqual = "NUMERIC_NOT_EQUAL"
    case numericGreaterThan = "NUMERIC_GREATER_THAN"
    case numericGreaterEqual = "NUMERIC_GREATER_EQUAL"
    case stringContains = "STRING_CONTAINS"
    case stringDoesNotContain = "STRING_DOES_NOT_CONTAIN"
    case stringExactlyMatches = "STRING_EXACTLY_MATCHES"
    case stringContainsRegex = "STRING_CONTAINS_REGEX"
    case semanticVersionLessThan = "SEMANTIC_VERSION_LESS_THAN"
    case semanticVersionLessEqual = "SEMANTIC_VERSION_LESS_EQUAL"
    case semanticVersionEqual = "SEMANTIC_VERSION_EQUAL"
    case semanticVersionNotEqual = "SEMANTIC_VERSION_NOT_EQUAL"
    case semanticVersionGreaterThan = "SEMANTIC_VERSION_GREATER_THAN"
    case semanticVersionGreaterEqual = "SEMANTIC_VERSION_GREATER_EQUAL"

    /// Firebase's limit on targets of string operators.
    public static let maxTargets = 100

    /// Whether only one target is allowed (numeric and semantic-version operators).
    public var takesSingleTarget: Bool {
        numericComparison != nil || versionComparison != nil
    }

    var numericComparison: ComparisonOperator? {
        switch self {
        case .numericLessThan: .less
        case .numericLessEqual: .lessOrEqual
        case .numericEqual: .equal
        case .numericNotEqual: .notEqual
        case .numericGreaterThan: .greater
        case .numericGreaterEqual: .greaterOrEqual
        default: nil
        }
    }

    var versionComparison: ComparisonOperator? {
        switch self {
        case .semanticVersionLessThan: .less
        case .semanticVersionLessEqual: .lessOrEqual
        case .semanticVersionEqual: .equal
        case .semanticVersionNotEqual: .notEqual
        case .semanticVersionGreaterThan: .greater
        case .semanticVersionGreaterEqual: .greaterOrEqual
        default: nil
        }
    }

    static func numeric(_ comparison: ComparisonOperator) -> CustomSignalOperator {
        switch comparison {
        case .less: .numericLessThan
        case .lessOrEqual: .numericLessEqual
        case .equal: .numericEqual
        case .notEqual: .numericNotEqual
        case .greater: .numericGreaterThan
        case .greaterOrEqual: .numericGreaterEqual
        }
    }

    static func semanticVersion(_ comparison: ComparisonOperator) -> CustomSignalOperator {
        switch comparison {
        case .less: .semanticVersionLessThan
        case .lessOrEqual: .semanticVersionLessEqual
        case .equal: .semanticVersionEqual
        case .notEqual: .semanticVersionNotEqual
        case .greater: .semanticVersionGreaterThan
        case .greaterOrEqual: .semanticVersionGreaterEqual
        }
    }
}
