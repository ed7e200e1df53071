import ConfigCore

/// A connection of `SQLiteConfigDatabase`: the reader, or the writer inside `BEGIN IMMEDIATE`,
/// which already keeps every other writer out, so that reading a head or holding a `WriteLock`
/// locks nothing more. SQLite numbers `?` itself.
package struct SQLiteStoreConnection: StoreConnection {
    let database: SQLiteDatabase

    package static var claimingClause: String { "" }

    package static var bytewiseCollation: String { " COLLATE BINARY" }

    package func lockHeadRow(of key: TemplateKey, creatingIt: Bool) throws -> Int64? {
        try database.queryFirst(
            "SELECT active_version FROM template_heads WHERE project = ? AND namespace = ?",
            [.text(key.project), .text(key.namespace.rawValue)]) { $0.int64(at: 0) }
    }

    package func run(_ sql: String, _ values: [StoreValue]) throws -> Int {
        try database.execute(sql, values.map(SQLiteValue.init))
    }

    package func rows<Result>(_ sql: String, _ values: [StoreValue], _ decode: (SQLiteStatement) throws -> Result) throws -> [Result] {
        try database.query(sql, values.map(SQLiteValue.init), row: decode)
    }
}

extension SQLiteValue {
    /// The value of a store's statement, bytes as a blob.
    init(_ value: StoreValue) {
        switch value {
        case .null: self = .null
        case .integer(let number): self = .integer(number)
        case .text(let text): self = .text(text)
        case .bytes(let bytes): self = .blob(bytes)
        }
    }
}

extension SQLiteStatement: StoreRow {
    package func bytes(at column: Int) -> [UInt8] { blob(at: column) }
}
