import PostgresTestSupport
import ConfigCore
import ConfigStore
import Foundation
import PostgresStore
import Synchronization
import StoreTestSupport
import Testing

/// Several stores ("nodes") on one database, each with its own connections, as separate
/// servers sharing PostgreSQL would be.
@Suite final class PostgresNodesTests {
    let database: TestDatabase
    let fixture: PostgresFixture

    init() throws {
        database = try TestDatabase()
        fixture = PostgresFixture(database: database)
    }

    @Test(.timeLimit(.minutes(2)))
    func twoNodesExpectingTheSameVersionAtOnceExactlyOneWins() throws {
        let nodes = try [fixture.make(), fixture.make(addProject: false)]
        let rounds = 50
        let outcomes = Mutex<[[String]]>(Array(repeating: [], count: rounds))
        let arrived = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        onThreads(2) { node in
            for round in 0..<rounds {
                // A two-thread barrier: both publish at the same moment.
                arrived[node].signal()
                arrived[1 - node].wait()
                let outcome: String
                do {
                    let version = try nodes[node].templates.publish(
                        project: "p1", namespace: .client, templateJSON: Array("{\"node\":\(node)}".utf8),
                        expectedVersion: Int64(round), metadata: PublishMetadata())
                    outcome = "won \(version.versionNumber)"
                } catch {
                    outcome = "\(error)"
                }
                outcomes.withLock { $0[round].append(outcome) }
            }
        }
        for (round, results) in outcomes.withLock({ $0 }).enumerated() {
            let number = Int64(round + 1)
            #expect(results.sorted() == ["\(StoreError.versionMismatch(current: number))", "won \(number)"].sorted(),
                    "round \(round + 1)")
        }
        #expect(try nodes[1].templates.versionNumbers() == Array((1...Int64(rounds)).reversed()))
    }

    @Test(.timeLimit(.minutes(2)))
    func twoFirstPublishersOnTwoNodesSerialize() throws {
        for round in 0..<20 {
            let project = "first-\(round)"
            let nodes = try [fixture.make(addProject: false), fixture.make(addProject: false)]
            try nodes[0].projects.upsert(StoredProject(id: project, number: "\(5000 + round)"))
            let numbers = Mutex<[Int64]>([])
            let failures = Mutex<[String]>([])
            onThreads(2) { node in
                do {
                    let version = try nodes[node].templates.publish(
                        project: project, namespace: .server, templateJSON: [], expectedVersion: nil,
                        metadata: PublishMetadata())
                    numbers.withLock { $0.append(version.versionNumber) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
            #expect(numbers.withLock { $0 }.sorted() == [1, 2])
            nodes.forEach { $0.close() }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func concurrentMigratorsOnAFreshDatabaseApplyEachMigrationOnce() throws {
        let migrator = PostgresMigrator(try Migrator(directory: PostgresTestServer.migrations))
        let applied = Mutex<[Int]>([])
        let failures = Mutex<[String]>([])
        let database = self.database
        onThreads(6) { _ in
            do {
                let connection = try database.connect()
                defer { connection.close() }
                let versions = try migrator.migrate(connection)
                applied.withLock { $0 += versions }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(applied.withLock { $0 }.sorted() == migrator.migrator.migrations.map(\.version))
        let connection = try database.connect()
        #expect(try PostgresMigrator.appliedVersions(on: connection) == migrator.migrator.migrations.map(\.version))
        #expect(try migrator.isUpToDate(connection))
    }

    @Test(.timeLimit(.minutes(2)))
    func storesStartingTogetherOnAFreshDatabaseAllWork() throws {
        let stores = Mutex<[any ConfigDatabase]>([])
        let failures = Mutex<[String]>([])
        let fixture = self.fixture
        onThreads(4) { _ in
            do {
                let store = try fixture.open(retention: 300, clock: nil)
                stores.withLock { $0.append(store) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(stores.withLock { $0 }.count == 4)
        for store in stores.withLock({ $0 }) {
            #expect(try store.projects.all() == [])
        }
        let migrator = PostgresMigrator(try Migrator(directory: PostgresTestServer.migrations))
        #expect(try migrator.isUpToDate(database.connect()))
    }
}
