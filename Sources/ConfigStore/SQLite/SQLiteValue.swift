/// A value bound to a `?` parameter of a SQLite statement.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// `.text(value)`, or `.null` when `value` is nil.
    public static func text(_ value: String?) -> SQLiteValue {
        value.map { .text($0) } ?? .null
    }

    /// `.integer(value)`, or `.null` when `value` is nil.
    public static func integer(_ value: Int64?) -> SQLiteValue {
        value.map { .integer($0) } ?? .null
    }

    /// `.text(value.rawValue)`, or `.null` when `value` is nil: for the store's enums.
    public static func text<Value: RawRepresentable<String>>(_ value: Value?) -> SQLiteValue {
        value.map { .text($0.rawValue) } ?? .null
    }
}
