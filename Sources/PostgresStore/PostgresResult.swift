import CLibPQ

/// The rows of one statement, in binary format, cleared exactly once when the last reference
/// goes away.
public final class PostgresResult {
    let handle: OpaquePointer

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        // The only place that clears: each result object owns its handle.
        PQclear(handle)
    }

    /// How many rows the statement returned.
    public var rowCount: Int { Int(PQntuples(handle)) }

    /// How many rows an INSERT, UPDATE or DELETE touched (0 for other statements).
    public var affectedRows: Int {
        guard let text = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    /// The command tag (`COMMIT`, `ROLLBACK`, `INSERT 0 1`, ...).
    public var commandStatus: String {
        PQcmdStatus(handle).map { String(cString: $0) } ?? ""
    }

    /// Row `index` (0-based).
    public func row(_ index: Int) -> PostgresRow {
        precondition((0..<rowCount).contains(index), "row \(index) of \(rowCount)")
        return PostgresRow(result: self, index: Int32(index))
    }
}

/// One row of a `PostgresResult`, read by column position.
///
/// Reading a column as a type its PostgreSQL type cannot give, or a NULL through a
/// non-optional accessor, is a programming error and traps.
public struct PostgresRow {
    // Binary-format type OIDs (pg_type.h).
    private static let integerTypes: Set<UInt32> = [20, 21, 23]  // int8, int2, int4
    private static let textTypes: Set<UInt32> = [25, 1043, 19, 1042]  // text, varchar, name, bpchar
    private static let byteaType: UInt32 = 17
    private static let boolType: UInt32 = 16

    let result: PostgresResult
    let index: Int32

    /// How many columns the row has.
    public var columnCount: Int { Int(PQnfields(result.handle)) }

    /// Whether column `column` is NULL.
    public func isNull(at column: Int) -> Bool {
        PQgetisnull(result.handle, index, Int32(column)) == 1
    }

    /// An int2, int4 or int8 column.
    public func int64(at column: Int) -> Int64 {
        let bytes = value(at: column, of: Self.integerTypes, "an integer")
        let unused = 64 - 8 * bytes.count
        // Big-endian, two's complement: shift the sign bit to the top and back to extend it.
        return (bytes.reduce(Int64(0)) { ($0 << 8) | Int64($1) } << unused) >> unused
    }

    /// An integer column that may be NULL.
    public func optionalInt64(at column: Int) -> Int64? {
        isNull(at: column) ? nil : int64(at: column)
    }

    /// A text, varchar, name or char column.
    public func text(at column: Int) -> String {
        String(decoding: value(at: column, of: Self.textTypes, "text"), as: UTF8.self)
    }

    /// A text column that may be NULL.
    public func optionalText(at column: Int) -> String? {
        isNull(at: column) ? nil : text(at: column)
    }

    /// A bytea column, exactly as stored.
    public func bytes(at column: Int) -> [UInt8] {
        value(at: column, of: [Self.byteaType], "bytea")
    }

    /// A boolean column.
    public func bool(at column: Int) -> Bool {
        value(at: column, of: [Self.boolType], "boolean") == [1]
    }

    private func value(at column: Int, of types: Set<UInt32>, _ name: String) -> [UInt8] {
        let field = Int32(column)
        precondition((0..<PQnfields(result.handle)).contains(field), "no column \(column)")
        let type = PQftype(result.handle, field)
        precondition(types.contains(type), "column \(column) has type OID \(type), not \(name)")
        precondition(!isNull(at: column), "column \(column) is NULL")
        let length = Int(PQgetlength(result.handle, index, field))
        guard length > 0, let start = PQgetvalue(result.handle, index, field) else { return [] }
        return start.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }
}
