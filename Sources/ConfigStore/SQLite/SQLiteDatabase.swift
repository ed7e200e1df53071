import RCSQLite

/// One SQLite connection with a prepared-statement cache.
///
/// Not Sendable: a connection has one owner at a time (the store keeps each of its connections
/// inside a `Mutex`). It is opened with `SQLITE_OPEN_NOMUTEX` because that owner already
/// serializes every call.
public final class SQLiteDatabase {
    /// How a connection is opened and set up.
    public struct Configuration: Sendable {
        /// Create the file if it does not exist (`SQLITE_OPEN_CREATE`).
        public var createIfMissing: Bool
        /// How long a statement waits for another connection's lock before `SQLITE_BUSY`.
        public var busyTimeoutMilliseconds: Int32
        /// `PRAGMA journal_mode` to set, or nil to keep the file's mode (WAL is persistent).
        public var journalMode: String?
        /// `PRAGMA synchronous`; `FULL` makes a commit durable before it is acknowledged.
        public var synchronous: String
        /// `PRAGMA foreign_keys`.
        public var foreignKeys: Bool
        /// `PRAGMA query_only`: reject writes on this connection.
        public var queryOnly: Bool

        /// - Parameters: see the properties; the defaults suit the store's writer connection.
        public init(
            createIfMissing: Bool = true,
            busyTimeoutMilliseconds: Int32 = 10_000,
            journalMode: String? = "wal",
            synchronous: String = "FULL",
            foreignKeys: Bool = true,
            queryOnly: Bool = false
        ) {
            self.createIfMissing = createIfMissing
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.journalMode = journalMode
            self.synchronous = synchronous
            self.foreignKeys = foreignKeys
            self.queryOnly = queryOnly
        }
    }

    /// The path the connection was opened with.
    public let path: String
    private var handle: OpaquePointer?
    // Keyed by SQL text; only for the fixed statements of this module, so it stays small.
    private var statementCache: [String: SQLiteStatement] = [:]

    /// Opens (and by default creates) the database at `path` and applies `configuration`.
    /// - Throws: `SQLiteError` naming the path when the file cannot be opened or set up.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.path = path
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if configuration.createIfMissing { flags |= SQLITE_OPEN_CREATE }
        var connection: OpaquePointer?
        let rc = sqlite3_open_v2(path, &connection, flags, nil)
        guard rc == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(connection)
            throw SQLiteError(code: rc, message: "cannot open \(path): \(message)")
        }
        handle = connection
        sqlite3_extended_result_codes(connection, 1)
        sqlite3_busy_timeout(connection, configuration.busyTimeoutMilliseconds)
        do {
            try configure(configuration)
        } catch {
            close()
            throw error
        }
    }

    private func configure(_ configuration: Configuration) throws {
        if let mode = configuration.journalMode {
            // The pragma answers with the mode in effect; a file system without shared memory
            // support silently keeps the old one.
            let actual = try setJournalMode(mode, waitingMilliseconds: configuration.busyTimeoutMilliseconds)
            guard actual.lowercased() == mode.lowercased() else {
                throw SQLiteError(
                    code: SQLITE_ERROR, message: "cannot set journal_mode=\(mode) on \(path): still \(actual)")
            }
        }
        try executeScript("PRAGMA synchronous = \(configuration.synchronous)")
        try executeScript("PRAGMA foreign_keys = \(configuration.foreignKeys ? "ON" : "OFF")")
        if configuration.queryOnly {
            try executeScript("PRAGMA query_only = ON")
        }
    }

    /// Leaving a rollback journal for WAL needs the write lock after reading the header, and
    /// SQLite answers `SQLITE_BUSY` at once, without waiting in the busy handler, while another
    /// connection holds it (several processes opening a new file together): retry until the
    /// busy timeout has passed, as any other statement would wait.
    private func setJournalMode(_ mode: String, waitingMilliseconds: Int32) throws -> String {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(waitingMilliseconds))
        while true {
            do {
                return try query("PRAGMA journal_mode = \(mode)") { $0.text(at: 0) }.first ?? ""
            } catch SQLiteError.ResultCode.busy where clock.now < deadline {
                sqlite3_sleep(5)
            }
        }
    }

    deinit {
        close()
    }

    /// Whether the connection is still open.
    public var isOpen: Bool { handle != nil }

    /// Finalizes the cached statements and closes the connection. Idempotent.
    ///
    /// An open transaction is rolled back. A statement still referenced elsewhere keeps the
    /// connection alive as a zombie until it is released (`sqlite3_close_v2`).
    public func close() {
        statementCache.removeAll()
        guard let connection = handle else { return }
        handle = nil
        sqlite3_close_v2(connection)
    }

    func connection(for sql: String?) throws -> OpaquePointer {
        guard let handle else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "database \(path) is closed", sql: sql)
        }
        return handle
    }

    // MARK: Statements

    /// Prepares `sql` (one statement) without caching it.
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        let connection = try connection(for: sql)
        var statement: OpaquePointer?
        var source = sql
        let rc = source.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_prepare_v3(connection, chars.baseAddress, Int32(chars.count), 0, &statement, nil)
            }
        }
        guard rc == SQLITE_OK, let statement else {
            throw SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        return SQLiteStatement(handle: statement, sql: sql)
    }

    /// A prepared statement for `sql` from the cache, reset and with cleared bindings.
    ///
    /// Not re-entrant: running the same SQL again while iterating its rows resets the first use.
    /// Use `prepare` for SQL built at run time; the cache is meant for fixed statements.
    public func cachedStatement(_ sql: String) throws -> SQLiteStatement {
        if let statement = statementCache[sql] {
            _ = try connection(for: sql)
            statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs one statement that returns no rows.
    /// - Returns: the number of rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> Int {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        statement.bind(bindings)
        while try statement.step() {}
        return Int(sqlite3_changes(try connection(for: sql)))
    }

    /// Runs one statement and maps each row.
    public func query<Row>(
        _ sql: String, _ bindings: [SQLiteValue] = [], row: (SQLiteStatement) throws -> Row
    ) throws -> [Row] {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        statement.bind(bindings)
        var rows: [Row] = []
        while try statement.step() {
            rows.append(try row(statement))
        }
        return rows
    }

    /// Runs one statement and maps its first row, if any.
    public func queryFirst<Row>(
        _ sql: String, _ bindings: [SQLiteValue] = [], row: (SQLiteStatement) throws -> Row
    ) throws -> Row? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        statement.bind(bindings)
        return try statement.step() ? row(statement) : nil
    }

    /// The rowid of the last row this connection inserted.
    var lastInsertedRowID: Int64 {
        handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    /// Runs SQL text that may hold several statements (a migration file), without caching.
    public func executeScript(_ sql: String) throws {
        let connection = try connection(for: sql)
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(connection, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(connection))
            throw SQLiteError(code: sqlite3_extended_errcode(connection), message: text, sql: sql)
        }
    }

    /// Whether a transaction is open on this connection (`sqlite3_get_autocommit` is 0).
    public var isInTransaction: Bool {
        guard let handle else { return false }
        return sqlite3_get_autocommit(handle) == 0
    }
}

@available(*, unavailable)
extension SQLiteDatabase: Sendable {}
