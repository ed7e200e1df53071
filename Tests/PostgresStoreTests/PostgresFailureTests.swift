import PostgresTestSupport
import ConfigCore
import ConfigStore
import Foundation
import PostgresStore
import StoreTestSupport
import Testing

/// Unreachable, stopped and restarted servers, and credentials kept out of messages.
@Suite final class PostgresFailureTests {
    @Test func aClosedPortIsUnavailableAndTheMessageNamesTheServerWithoutThePassword() throws {
        let url = "postgresql://admin:Secret-Word-9@127.0.0.1:1/config"
        let error = try #require(throws: StoreError.self) {
            try PostgresConfigDatabase(url: url, migrationsDirectory: PostgresTestServer.migrations)
        }
        guard case .unavailable(let message) = error else {
            Issue.record("expected unavailable, got \(error)")
            return
        }
        #expect(message.contains("postgresql://admin@127.0.0.1:1/config"))
        #expect(!message.contains("Secret-Word-9") && !"\(error)".contains("Secret-Word-9"))
    }

    @Test func thePasswordIsScrubbedFromServerMessages() throws {
        // Trust authentication ignores the password, and the server names the missing database,
        // which here is the password itself.
        let server = try PostgresTestServer.url
        let url = try TestDatabase.url(
            server.replacingOccurrences(of: "postgres@", with: "postgres:Hunter2Word@"), database: "Hunter2Word")
        let error = try #require(throws: StoreError.self) {
            try PostgresConfigDatabase(url: url, migrationsDirectory: PostgresTestServer.migrations)
        }
        #expect("\(error)".contains("does not exist"))
        #expect(!"\(error)".contains("Hunter2Word"))
    }

    @Test func onlyWhatATryLaterHelpsIsUnavailable() {
        // As the server sends them: a class, or a code of its own.
        for sqlState in ["08006", "53100", "57P01", "57P03", "57014", "55P03", "40001", "40P01", nil] {
            #expect(PostgresError(sqlState: sqlState, message: "").isUnavailable, "\(sqlState ?? "no answer")")
        }
        for sqlState in ["23505", "23503", "42601", "22021", "25P02"] {
            #expect(!PostgresError(sqlState: sqlState, message: "").isUnavailable, "\(sqlState)")
        }
        #expect(PostgresError(.characterNotInRepertoire, message: "").isDataException)
        #expect(!PostgresError(.uniqueViolation, message: "").isDataException)
        #expect(PostgresError.Code.uniqueViolation.errorClass == PostgresError.Code("23000"))
    }

    @Test func descriptionsLeaveOutThePasswordAndEveryOtherParameter() throws {
        let url = try PostgresConnectionSettings("postgresql://u%40x:p%40ss@db.example:6543/conf?sslmode=require&password=other")
        #expect(url.description == "postgresql://u%40x@db.example:6543/conf")
        let conninfo = try PostgresConnectionSettings("host=/run/pg port=5433 user=app password=pw dbname=rc")
        #expect(conninfo.description == "postgresql://app@%2Frun%2Fpg:5433/rc")
        let bad = try #require(throws: PostgresError.self) {
            try PostgresConnectionSettings("postgresql://u:Secret-Word-9@h/db?nonsense=1")
        }
        #expect(bad.message.contains("nonsense") && !bad.message.contains("Secret-Word-9"))
    }

    @Test func keepalivesTimeoutsAndApplicationNameAreAddedOnlyWhenAbsent() throws {
        let settings = try PostgresConnectionSettings("postgresql://h/db?connect_timeout=3&application_name=mine")
        #expect(settings.value(of: "connect_timeout") == "3")
        #expect(settings.value(of: "application_name") == "mine")
        #expect(settings.value(of: "keepalives_idle") == "30")
        #expect(settings.value(of: "keepalives_interval") == "10")
        #expect(settings.value(of: "keepalives_count") == "3")
        #expect(settings.value(of: "tcp_user_timeout") == "30000")
        #expect(try PostgresConnectionSettings("host=h").value(of: "application_name") == "remote-config-server")
    }

    @Test(.timeLimit(.minutes(1)))
    func aStoppedServerIsUnavailableNotACrash() throws {
        let cluster = try PostgresTestServer.startCluster()
        var stopped = false
        defer { if !stopped { _ = try? PostgresTestServer.stopCluster(directory: cluster.directory) } }
        let store = try PostgresFixture.database(url: cluster.url)
        try store.projects.upsert(StoredProject(id: "p1", number: "1"))
        try store.publishTag(1)

        try PostgresTestServer.stopCluster(directory: cluster.directory)
        stopped = true
        for call in [{ _ = try store.publishTag(2) }, { _ = try store.templates.heads() }, { _ = try store.changeToken() }] {
            let error = try #require(throws: StoreError.self) { try call() }
            guard case .unavailable = error else {
                Issue.record("expected unavailable, got \(error)")
                continue
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aTerminatedConnectionIsReplacedOnItsNextUse() async throws {
        let database = try TestDatabase()
        let store = try PostgresConfigDatabase(
            url: database.url + "?application_name=rcs-node-a", migrationsDirectory: PostgresTestServer.migrations,
            connections: 1)
        try store.projects.upsert(StoredProject(id: "p1", number: "1"))
        try store.publishTag(1)

        // With a time-out, pg_terminate_backend returns once the backend is gone (PostgreSQL 14).
        let admin = try database.connect()
        let terminated = try admin.queryFirst(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 10000)) FROM pg_stat_activity WHERE application_name = 'rcs-node-a'"
        ) { $0.int64(at: 0) }
        #expect(terminated == 1)

        // Its connection is closed: the pool sees that before the next call, which gets a new
        // connection instead of failing (a restart costs no failed call).
        #expect(try store.publishTag(2).versionNumber == 2)
        #expect(try store.templates.heads() == [TemplateKey(project: "p1", namespace: .client): 2])
    }
}
