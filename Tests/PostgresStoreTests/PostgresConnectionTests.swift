import ConfigStore
import Foundation
import PostgresStore
import PostgresTestSupport
import Synchronization
import Testing

/// The libpq wrapper on its own.
@Suite final class PostgresConnectionTests {
    let database: TestDatabase
    let connection: PostgresConnection

    init() throws {
        database = try TestDatabase()
        connection = try database.connect()
        try connection.executeScript("CREATE TABLE t (id bigint PRIMARY KEY, name text UNIQUE, data bytea, flag boolean)")
    }

    deinit {
        connection.close()
    }

    @Test func valuesRoundTripExactly() throws {
        let bytes: [UInt8] = [0, 1, 0xFF, 0x5C, 0x78, 0]
        for (id, data, name) in [(Int64.min, bytes, "žluťoučký"), (-1, [], ""), (Int64.max, [0], "'; DROP TABLE t; --")] {
            try connection.execute(
                "INSERT INTO t (id, name, data, flag) VALUES ($1, $2, $3, $4)",
                [.integer(id), .text(name), .bytes(data), .null])
            let row = try #require(try connection.queryFirst(
                "SELECT id, name, data, flag, 7::int2 FROM t WHERE id = $1", [.integer(id)]
            ) { row in (row.int64(at: 0), row.text(at: 1), row.bytes(at: 2), row.isNull(at: 3), row.int64(at: 4)) })
            #expect(row.0 == id && row.1 == name && row.2 == data && row.3 && row.4 == 7)
        }
        #expect(try connection.queryFirst("SELECT (-5)::int4, NULL::text") { ($0.int64(at: 0), $0.optionalText(at: 1)) }! == (-5, nil))
        #expect(try connection.query("SELECT id FROM t ORDER BY id") { $0.int64(at: 0) } == [.min, -1, .max])
        #expect(try connection.execute("DELETE FROM t WHERE id < 0").affectedRows == 2)
    }

    @Test func errorsCarryTheSQLStateAndTheConstraint() throws {
        try connection.execute("INSERT INTO t (id, name) VALUES (1, 'a')")
        let duplicate = try #require(throws: PostgresError.self) {
            try self.connection.execute("INSERT INTO t (id, name) VALUES (2, 'a')")
        }
        #expect(duplicate.code == .uniqueViolation && duplicate.constraint == "t_name_key" && !duplicate.isUnavailable)
        #expect(duplicate.detail?.contains("(name)=(a)") == true)
        let syntax = try #require(throws: PostgresError.self) { try self.connection.execute("SELEC 1") }
        #expect(syntax.code == .syntaxError)
        #expect(connection.isOpen)  // a failed statement leaves the connection usable
    }

    @Test func aFailingTransactionRollsBackAndRethrowsTheFirstError() throws {
        let error = try #require(throws: PostgresError.self) {
            try self.connection.inTransaction {
                try self.connection.execute("INSERT INTO t (id) VALUES (1)")
                try self.connection.execute("INSERT INTO t (id) VALUES (1)")
            }
        }
        #expect(error.code == .uniqueViolation)
        #expect(try connection.queryFirst("SELECT count(*) FROM t") { $0.int64(at: 0) } == 0)
        let swallowed = try #require(throws: PostgresError.self) {
            try self.connection.inTransaction { _ = try? self.connection.execute("INSERT INTO nowhere VALUES (1)") }
        }
        #expect(swallowed.code == .inFailedSQLTransaction)  // COMMIT answered ROLLBACK
        try connection.inTransaction { try self.connection.execute("INSERT INTO t (id) VALUES (1)") }
        #expect(try connection.queryFirst("SELECT count(*) FROM t") { $0.int64(at: 0) } == 1)
    }

    @Test func noticesGoToTheClosureNotToStandardError() throws {
        let notices = Mutex<[String]>([])
        let noisy = try PostgresConnection(database.url, onNotice: { notice in notices.withLock { $0.append(notice) } })
        try noisy.execute("DO $$ BEGIN RAISE NOTICE 'hello %', 42; RAISE WARNING 'careful'; END $$")
        #expect(notices.withLock { $0 } == ["NOTICE:  hello 42", "WARNING:  careful"])
    }

    @Test func aClosedConnectionThrowsInsteadOfCrashing() throws {
        let closing = try database.connect()
        closing.close()
        closing.close()
        #expect(!closing.isOpen && closing.backendPID == 0 && closing.socket == -1)
        let error = try #require(throws: PostgresError.self) { try closing.execute("SELECT 1") }
        #expect(error.code == nil && error.isUnavailable)
    }

    @Test func theApplicationNameIsVisibleToTheServer() throws {
        let named = try PostgresConnection(database.url, applicationName: "rcs-node-7")
        let name = try connection.queryFirst(
            "SELECT application_name::text FROM pg_stat_activity WHERE pid = $1", [.integer(Int64(named.backendPID))]
        ) { $0.text(at: 0) }
        #expect(name == "rcs-node-7")
    }
}
