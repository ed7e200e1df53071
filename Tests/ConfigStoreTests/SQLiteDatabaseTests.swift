import ConfigStore
import Dispatch
import Foundation
import Glibc
import TestSupport
import Testing

@Suite final class SQLiteDatabaseTests {
    private let temporary: TemporaryDirectory
    private var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory()
    }

    private struct Boom: Error, Equatable {}

    private func open(_ directory: URL, busyTimeout: Int32 = 10_000) throws -> SQLiteDatabase {
        try SQLiteDatabase(
            path: directory.appendingPathComponent("test.sqlite").path,
            configuration: .init(busyTimeoutMilliseconds: busyTimeout))
    }

    @Test func opensInWALModeWithForeignKeysAndFullSync() throws {
        let database = try open(directory)
        #expect(try database.queryFirst("PRAGMA journal_mode") { $0.text(at: 0) } == "wal")
        #expect(try database.queryFirst("PRAGMA foreign_keys") { $0.int64(at: 0) } == 1)
        #expect(try database.queryFirst("PRAGMA synchronous") { $0.int64(at: 0) } == 2)  // FULL
    }

    @Test func textAndBlobsRoundTripWithTheirByteCounts() throws {
        let database = try open(directory)
        try database.executeScript("CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT, b BLOB, i INTEGER)")
        let rows: [(String?, [UInt8]?, Int64?)] = [
            ("a\u{0}b", [0, 1, 0, 255], .max),
            ("", [], .min),
            (nil, nil, nil),
            ("héllo 😊", Array(repeating: 7, count: 100_000), 0),
        ]
        for (index, row) in rows.enumerated() {
            try database.execute(
                "INSERT INTO t (id, s, b, i) VALUES (?, ?, ?, ?)",
                [.integer(Int64(index)), .text(row.0), row.1.map { .blob($0) } ?? .null, .integer(row.2)])
        }
        let read = try database.query("SELECT s, b, i, b IS NULL FROM t ORDER BY id") {
            ($0.optionalText(at: 0), $0.blob(at: 1), $0.optionalInt64(at: 2), $0.int64(at: 3) == 1)
        }
        #expect(read.count == rows.count)
        for (got, want) in zip(read, rows) {
            #expect(got.0 == want.0)
            #expect(got.1 == (want.1 ?? []))
            #expect(got.2 == want.2)
            #expect(got.3 == (want.1 == nil))  // an empty blob is not NULL
        }
    }

    @Test func transactionRollsBackAndRethrowsTheBodysError() throws {
        let database = try open(directory)
        try database.executeScript("CREATE TABLE t (x INTEGER)")
        #expect(throws: Boom()) {
            try database.inTransaction(.immediate) {
                try database.execute("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(!database.isInTransaction)
        #expect(try database.queryFirst("SELECT count(*) FROM t") { $0.int64(at: 0) } == 0)

        let value = try database.inTransaction {
            try database.execute("INSERT INTO t VALUES (2)")
            return 42
        }
        #expect(value == 42)
        #expect(try database.query("SELECT x FROM t") { $0.int64(at: 0) } == [2])
    }

    @Test func sqlErrorsCarryCodesMessageAndSQL() throws {
        let database = try open(directory)
        try database.executeScript("CREATE TABLE t (x INTEGER UNIQUE)")
        try database.execute("INSERT INTO t VALUES (1)")
        let error = try #require(throws: SQLiteError.self) {
            try database.execute("INSERT INTO t VALUES (?)", [.integer(1)])
        }
        #expect(error.primaryCode == .constraint)
        #expect(error.extendedCode == .constraintUnique)
        #expect(error.message.contains("UNIQUE"))
        #expect(error.sql == "INSERT INTO t VALUES (?)")
        #expect(SQLiteError.ResultCode.constraint ~= error)
        #expect(SQLiteError.ResultCode.constraintUnique ~= error)
        #expect(!(SQLiteError.ResultCode.constraintForeignKey ~= error))

        let syntax = try #require(throws: SQLiteError.self) { try database.execute("SELEC 1") }
        #expect(syntax.primaryCode == .error)
        #expect(syntax.description.contains("SELEC 1"))
    }

    @Test func secondWriterGetsBusyWhileTheFirstHoldsTheLock() throws {
        let first = try open(directory, busyTimeout: 0)
        let second = try open(directory, busyTimeout: 0)
        try first.executeScript("CREATE TABLE t (x INTEGER)")
        try first.execute("BEGIN IMMEDIATE")
        let error = try #require(throws: SQLiteError.self) {
            try second.inTransaction(.immediate) { try second.execute("INSERT INTO t VALUES (1)") }
        }
        #expect(error.primaryCode == .busy)
        try first.execute("COMMIT")
        try second.inTransaction(.immediate) { try second.execute("INSERT INTO t VALUES (1)") }
        #expect(try first.queryFirst("SELECT count(*) FROM t") { $0.int64(at: 0) } == 1)
    }

    /// Two processes opening a new database together: the switch to WAL meets the other's
    /// write lock, for which SQLite does not call its busy handler. Opening waits for the lock.
    @Test func openingWaitsForAnotherConnectionsWriteLockToSwitchToWAL() throws {
        let path = directory.appendingPathComponent("test.sqlite").path
        let locked = DispatchSemaphore(value: 0)
        let holder = Thread {
            let other = try? SQLiteDatabase(path: path, configuration: .init(journalMode: nil))
            _ = try? other?.execute("BEGIN IMMEDIATE")
            locked.signal()
            letTimePass(seconds: 0.3)  // how long the lock is held, not a synchronisation
            _ = try? other?.execute("COMMIT")
        }
        holder.start()
        locked.wait()
        let started = ContinuousClock.now
        let database = try open(directory, busyTimeout: 5_000)
        #expect(ContinuousClock.now - started >= .milliseconds(250), "it waited for the lock")
        #expect(try database.queryFirst("PRAGMA journal_mode") { $0.text(at: 0) } == "wal")
    }

    @Test func closedDatabaseThrowsMisuseAndCloseIsIdempotent() throws {
        let database = try open(directory)
        _ = try database.cachedStatement("SELECT 1")
        database.close()
        database.close()
        #expect(!database.isOpen)
        let error = try #require(throws: SQLiteError.self) { try database.execute("SELECT 1") }
        #expect(error.primaryCode == .misuse)
        #expect(error.message.contains("closed"))
    }

    @Test func openFailureNamesThePath() throws {
        let path = directory.appendingPathComponent("missing/dir/db.sqlite").path
        let error = try #require(throws: SQLiteError.self) { try SQLiteDatabase(path: path) }
        #expect(error.primaryCode == .cannotOpen)
        #expect(error.message.contains(path))
    }
}
