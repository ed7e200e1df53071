import RCSQLite

/// An error reported by libsqlite3: the primary and extended result codes, SQLite's message
/// and the SQL that failed, if any.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A SQLite result code, primary (`SQLITE_BUSY`) or extended (`SQLITE_BUSY_SNAPSHOT`).
    ///
    /// As a `catch` pattern it matches an error whose extended code equals it or, for a primary
    /// code, whose primary code equals it: `catch SQLiteError.ResultCode.constraint` also catches
    /// `SQLITE_CONSTRAINT_UNIQUE`.
    public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The primary code (low 8 bits of an extended code).
        public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

        public static let error = ResultCode(rawValue: SQLITE_ERROR)
        public static let busy = ResultCode(rawValue: SQLITE_BUSY)
        public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
        public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
        public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
        public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
        public static let full = ResultCode(rawValue: SQLITE_FULL)
        public static let cannotOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
        public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
        public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
        public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)
        public static let constraintUnique = ResultCode(rawValue: SQLITE_CONSTRAINT | (8 << 8))
        public static let constraintPrimaryKey = ResultCode(rawValue: SQLITE_CONSTRAINT | (6 << 8))
        public static let constraintForeignKey = ResultCode(rawValue: SQLITE_CONSTRAINT | (3 << 8))
        public static let constraintCheck = ResultCode(rawValue: SQLITE_CONSTRAINT | (1 << 8))

        /// SQLite's English name for the code, e.g. "database is locked".
        public var description: String {
            "\(String(cString: sqlite3_errstr(rawValue))) (\(rawValue))"
        }

        public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
            guard let error = error as? SQLiteError else { return false }
            if pattern.rawValue == pattern.primary.rawValue {
                return error.code.primary == pattern
            }
            return error.code == pattern
        }
    }

    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, ...); `code.primary` gives the
    /// primary one.
    public let code: ResultCode
    /// SQLite's message (`sqlite3_errmsg`), or ours for misuse detected in Swift.
    public let message: String
    /// The SQL being prepared or run, if any.
    public let sql: String?

    /// The primary result code (`SQLITE_CONSTRAINT`, ...).
    public var primaryCode: ResultCode { code.primary }
    /// The extended result code.
    public var extendedCode: ResultCode { code }

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = ResultCode(rawValue: code)
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var text = "SQLite error \(code.rawValue) (\(String(cString: sqlite3_errstr(code.rawValue)))): \(message)"
        if let sql { text += " [SQL: \(sql)]" }
        return text
    }
}
