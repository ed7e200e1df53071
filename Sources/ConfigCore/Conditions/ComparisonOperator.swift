/// One of the six ordering comparisons shared by numeric, version and date rules.
enum ComparisonOperator: Sendable, Hashable {
    case less, lessOrEqual, equal, notEqual, greater, greaterOrEqual

    /// The operator spelled `symbol` in an expression (`<`, `<=`, `==`, `!=`, `>`, `>=`).
    init?(symbol: String) {
        switch symbol {
        case "<": self = .less
        case "<=": self = .lessOrEqual
        case "==": self = .equal
        case "!=": self = .notEqual
        case ">": self = .greater
        case ">=": self = .greaterOrEqual
        default: return nil
        }
    }

    var symbol: String {
        switch self {
        case .less: "<"
        case .lessOrEqual: "<="
        case .equal: "=="
        case .notEqual: "!="
        case .greater: ">"
        case .greaterOrEqual: ">="
        }
    }

    /// Whether `actual <op> target` holds.
    @inline(__always)
    func holds<T: Comparable>(_ actual: T, _ target: T) -> Bool {
        switch self {
        case .less: actual < target
        case .lessOrEqual: actual <= target
        case .equal: actual == target
        case .notEqual: actual != target
        case .greater: actual > target
        case .greaterOrEqual: actual >= target
        }
    }
}
