import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing
import TestSupport

/// The database as a whole: closing, reopening, and the change token.
extension StoreContract {
    @Suite struct Database {
        let fresh = FreshData()

        @Test(arguments: StoreEngine.allCases) func answersUntilClosedThenUnavailable(engine: StoreEngine) throws {
            let fixture = try fresh.fixture(engine)
            let database = try fixture.make()
            try database.publishTag(1)
            database.close()
            database.close()  // idempotent
            for call in [{ _ = try database.publishTag(2) }, { _ = try database.templates.heads() },
                         { _ = try database.projects.all() }, { _ = try database.changeToken() }] {
                let error = try #require(throws: StoreError.self) { try call() }
                guard case .unavailable(let reason) = error else {
                    Issue.record("expected unavailable after close, got \(error)")
                    continue
                }
                #expect(reason.contains("closed"))
            }
            let reopened = try fixture.make(addProject: false)
            #expect(try reopened.templates.headState(project: "p1", namespace: .client).active == 1)
        }

        @Test(arguments: StoreEngine.allCases) func reopeningKeepsEverything(engine: StoreEngine) throws {
            let fixture = try fresh.fixture(engine)
            let database = try fixture.make()
            try database.projects.addAPIKey(project: "p1", keyHash: "hash", name: "key")
            let published = try (1...3).map { try database.publishTag($0) }
            let rolledBack = try database.templates.rollback(project: "p1", namespace: .client, to: 2, metadata: PublishMetadata())
            database.close()

            let reopened = try fixture.make(addProject: false)
            #expect(try reopened.projects.all() == [StoredProject(id: "p1", number: "1001", displayName: "Project One")])
            #expect(try reopened.projects.apiKeys(project: "p1").map(\.keyHash) == ["hash"])
            #expect(try reopened.templates.listVersions(project: "p1", namespace: .client, includeTemplateJSON: true).versions
                == [rolledBack] + published.reversed())
            #expect(try reopened.publishTag(5).versionNumber == 5)
        }

        @Test(arguments: StoreEngine.allCases) func theChangeTokenMovesOnCommitsFromAnyDatabase(engine: StoreEngine) throws {
            let fixture = try fresh.fixture(engine)
            let database = try fixture.make()
            let other = try fixture.make(addProject: false)
            let start = try database.changeToken()
            #expect(try database.changeToken() == start)

            try other.publishTag(1)
            let afterOther = try database.changeToken()
            #expect(afterOther != start)
            #expect(try database.templates.heads() == [TemplateKey(project: "p1", namespace: .client): 1])

            try database.publishTag(2)  // the database's own writes count too
            let afterOwn = try database.changeToken()
            #expect(afterOwn != afterOther)
            #expect(try other.templates.heads() == [TemplateKey(project: "p1", namespace: .client): 2])

            try other.projects.addAPIKey(project: "p1", keyHash: "k", name: "")
            #expect(try database.changeToken() != afterOwn)
            let beforeFailure = try database.changeToken()
            #expect(throws: StoreError.versionMismatch(current: 2)) {
                try database.templates.publish(project: "p1", namespace: .client, templateJSON: [], expectedVersion: 9,
                                               metadata: PublishMetadata())
            }
            #expect(try database.changeToken() == beforeFailure)  // nothing committed, nothing changed
        }
    }
}
