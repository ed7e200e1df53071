import RCSQLite

/// One prepared statement, finalized exactly once when the last reference goes away.
///
/// Owned by the `SQLiteDatabase` that prepared it and used on that connection's thread only.
/// Binding mistakes (bad index, wrong connection) are programming errors and trap; stepping
/// throws `SQLiteError`.
public final class SQLiteStatement {
    let handle: OpaquePointer
    /// The SQL text this statement was prepared from.
    public let sql: String

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    deinit {
        // The only place that finalizes: each statement object owns its handle.
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    /// Binds `value` to the 1-based parameter `index`.
    ///
    /// Text and blobs are bound with their byte counts and copied (`SQLITE_TRANSIENT`), so
    /// embedded NUL bytes survive and the Swift buffer may go away after the call.
    public func bind(_ value: SQLiteValue, at index: Int) {
        let position = Int32(index)
        let rc: Int32
        switch value {
        case .null:
            rc = sqlite3_bind_null(handle, position)
        case .integer(let number):
            rc = sqlite3_bind_int64(handle, position, number)
        case .real(let number):
            rc = sqlite3_bind_double(handle, position, number)
        case .text(let string):
            var string = string
            rc = string.withUTF8 { bytes in
                // An empty buffer may have no base address, and a NULL pointer would bind SQL NULL.
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text64(handle, position, "", 0, rcs_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                    sqlite3_bind_text64(
                        handle, position, chars, UInt64(bytes.count), rcs_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            rc = bytes.withUnsafeBytes { raw in
                // Same reason as for text: a zero-length blob must not become NULL.
                guard let base = raw.baseAddress, !raw.isEmpty else {
                    return sqlite3_bind_zeroblob(handle, position, 0)
                }
                return sqlite3_bind_blob64(handle, position, base, UInt64(raw.count), rcs_sqlite_transient())
            }
        }
        precondition(rc == SQLITE_OK, "cannot bind parameter \(index) of \(sql): result code \(rc)")
    }

    /// Binds `values` to parameters 1...n.
    public func bind(_ values: [SQLiteValue]) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        precondition(values.count == expected, "\(sql) takes \(expected) parameters, got \(values.count)")
        for (offset, value) in values.enumerated() {
            bind(value, at: offset + 1)
        }
    }

    // MARK: Stepping

    /// Runs the statement one step.
    /// - Returns: `true` when a row is available, `false` when the statement is done.
    /// - Throws: `SQLiteError` with the connection's message and this statement's SQL.
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw lastError(rc)
        }
    }

    /// Resets the statement and clears its bindings so it can be reused.
    public func reset() {
        // sqlite3_reset repeats the last step's error; step() has reported it already.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func lastError(_ rc: Int32) -> SQLiteError {
        let message = sqlite3_db_handle(handle).map { String(cString: sqlite3_errmsg($0)) } ?? "unknown error"
        return SQLiteError(code: rc, message: message, sql: sql)
    }

    // MARK: Columns (valid after `step()` returned `true`)

    /// The number of columns in the result.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// Whether column `index` (0-based) is SQL NULL.
    public func isNull(at index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    /// Column `index` as an integer (0 for NULL).
    public func int64(at index: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(index))
    }

    /// Column `index` as an integer, or nil for NULL.
    public func optionalInt64(at index: Int) -> Int64? {
        isNull(at: index) ? nil : int64(at: index)
    }

    /// Column `index` as UTF-8 text read with its byte count ("" for NULL).
    public func text(at index: Int) -> String {
        // Ask for the pointer first: sqlite3_column_bytes then reports the size of that form.
        guard let pointer = sqlite3_column_text(handle, Int32(index)) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Column `index` as text, or nil for NULL.
    public func optionalText(at index: Int) -> String? {
        isNull(at: index) ? nil : text(at: index)
    }

    /// Column `index` as bytes (empty for NULL or a zero-length blob).
    public func blob(at index: Int) -> [UInt8] {
        guard let pointer = sqlite3_column_blob(handle, Int32(index)) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

@available(*, unavailable)
extension SQLiteStatement: Sendable {}
