/// A value bound to a `?` of a `StoreStatements` statement, whichever the engine (and to a
/// `$n` of a PostgreSQL statement: `PostgresValue`).
public enum StoreValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case bytes([UInt8])

    /// `.integer(value)`, or `.null` when `value` is nil.
    public static func integer(_ value: Int64?) -> StoreValue { value.map { .integer($0) } ?? .null }

    /// `.text(value)`, or `.null` when `value` is nil.
    public static func text(_ value: String?) -> StoreValue { value.map { .text($0) } ?? .null }

    /// `.bytes(value)`, or `.null` when `value` is nil.
    public static func bytes(_ value: [UInt8]?) -> StoreValue { value.map { .bytes($0) } ?? .null }
}

/// Statements written once for both engines: `?` parameters (PostgreSQL's connection numbers
/// them), SQL that both dialects read the same. Every store runs on this (`StoreConnection`).
package protocol StoreStatements {
    associatedtype Row: StoreRow

    /// Runs a statement; how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [StoreValue]) throws -> Int

    /// The rows of a query, each decoded by `decode`.
    func rows<Result>(_ sql: String, _ values: [StoreValue], _ decode: (Row) throws -> Result) throws -> [Result]
}

extension StoreStatements {
    /// `?, ?, …`: `count` parameters.
    package static func parameters(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
