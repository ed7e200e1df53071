import ConfigCore
package import ConfigStore

/// A connection of `PostgresConfigDatabase`, in a READ COMMITTED transaction or on its own (one
/// statement, one snapshot). Writers of one template are kept apart by the lock on its
/// `template_heads` row (`lockHeadRow`), other writers by advisory locks (`WriteLock`), on any number
/// of nodes. Statements are written with `?`, which it numbers as PostgreSQL wants.
package struct PostgresStoreConnection: StoreConnection {
    let connection: PostgresConnection

    package static var claimingClause: String { " FOR UPDATE SKIP LOCKED" }

    /// The database's collation may order by language; "C" orders by bytes, as SQLite does.
    package static var bytewiseCollation: String { " COLLATE \"C\"" }

    /// Locks the head row until the transaction ends, so that every writer of the template, on
    /// any node, runs after the previous one committed and sees what it wrote. A first publish
    /// inserts the row pointing at version 0 (`setHead` moves it before the commit); a second
    /// first publisher waits on the inserted key until this transaction ends.
    package func lockHeadRow(of key: TemplateKey, creatingIt: Bool) throws -> Int64? {
        let row: [PostgresValue] = [.text(key.project), .text(key.namespace.rawValue)]
        func lock() throws -> Int64? {
            try connection.queryFirst(
                "SELECT active_version FROM template_heads WHERE project = $1 AND namespace = $2 FOR UPDATE", row
            ) { $0.int64(at: 0) }
        }
        if let found = try lock() { return found }
        guard creatingIt else { return nil }
        do {
            try connection.execute(
                "INSERT INTO template_heads (project, namespace, active_version) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING", row)
        } catch {
            if error.code == .foreignKeyViolation { throw StoreError.projectNotFound(key.project) }
            throw error
        }
        return try lock()
    }

    package func run(_ sql: String, _ values: [StoreValue]) throws -> Int {
        try connection.execute(Self.numbered(sql), values).affectedRows
    }

    package func rows<Result>(_ sql: String, _ values: [StoreValue], _ decode: (PostgresRow) throws -> Result) throws -> [Result] {
        try connection.query(Self.numbered(sql), values, row: decode)
    }

    /// `sql` with its `?` numbered `$1`, `$2`, …: none of the stores' statements holds a `?` in
    /// a literal.
    static func numbered(_ sql: String) -> String {
        var number = 0
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        for character in sql {
            if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }
}

extension PostgresRow: StoreRow {}
