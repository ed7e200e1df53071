/// A value bound to a `$n` parameter of a PostgreSQL statement.
///
/// Integers and text travel in text format; bytes travel in binary format, so `bytea` gets
/// them exactly, NUL bytes included.
public enum PostgresValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case bytes([UInt8])

    /// `.text(value)`, or `.null` when `value` is nil.
    public static func text(_ value: String?) -> PostgresValue {
        value.map { .text($0) } ?? .null
    }

    /// `.integer(value)`, or `.null` when `value` is nil.
    public static func integer(_ value: Int64?) -> PostgresValue {
        value.map { .integer($0) } ?? .null
    }
}
