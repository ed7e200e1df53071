import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing
import TestSupport

/// The database as a whole: closing, reopening, and the change token, which only announced
/// writes move.
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
            try database.projects.addAPIKey(project: "p1", keyHash: "hash", name: "key", environment: .production)
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

            try other.projects.addAPIKey(project: "p1", keyHash: "k", name: "", environment: .production)
            #expect(try database.changeToken() != afterOwn)
            let beforeFailure = try database.changeToken()
            #expect(throws: StoreError.versionMismatch(current: 2)) {
                try database.templates.publish(project: "p1", namespace: .client, templateJSON: [], expectedVersion: 9,
                                               metadata: PublishMetadata())
            }
            #expect(try database.changeToken() == beforeFailure)  // nothing committed, nothing changed
        }

        /// What every worker keeps in memory moves the token; what is read from the store when
        /// needed does not, so that it makes no worker read the control plane again.
        @Test(arguments: StoreEngine.allCases) func theChangeTokenMovesForAnnouncedWritesOnly(engine: StoreEngine) throws {
            let clock = ManualClock()
            let database = try fresh.fixture(engine).make(clock: clock)
            try database.access.put(.session, id: "ses1", record: [1])
            func expectNotMoved(_ what: String, _ write: () throws -> Void) throws {
                let before = try database.changeToken()
                try write()
                #expect(try database.changeToken() == before, "\(what) moved the change token")
            }
            func expectMoved(_ what: String, _ write: () throws -> Void) throws {
                let before = try database.changeToken()
                try write()
                #expect(try database.changeToken() != before, "\(what) did not move the change token")
            }
            try expectNotMoved("a session's start") { try database.access.put(.session, id: "ses2", record: [2]) }
            try expectNotMoved("a session's keep-alive") { _ = try database.access.update(.session, id: "ses1", record: [3]) }
            try expectNotMoved("an audit entry") {
                try database.audit.append(AuditEntry(time: clock.now, actorID: "a", actorName: "A", origin: "API", requestID: "r",
                                                     clientAddress: "127.0.0.1", action: "x", outcome: "ok"))
            }
            try expectNotMoved("an audit prune") { try database.audit.prune(before: clock.now) }
            try expectNotMoved("a sign-in attempt") {
                _ = try database.signIns.putAttempt(stateHash: "s", record: [1], expireTime: clock.now.addingTimeInterval(60),
                                                    maxPending: 5)
                _ = try database.signIns.takeAttempt(stateHash: "s")
            }
            try expectNotMoved("a change request") {
                let request = try database.changeRequests.insert(
                    StoredChangeRequest(project: "p1", namespace: .client, status: "open", record: [1]))
                _ = try database.changeRequests.update(request, expectedRevision: 1)
            }
            try expectNotMoved("a webhook endpoint") {
                try database.webhooks.createWebhook(StoredWebhook(
                    id: "wh_1", project: "p1", url: "https://hooks.example.com/", description: "", events: ["template.publish"],
                    secret: "whsec_1", createTime: clock.now, updateTime: clock.now))
            }
            try expectMoved("a project") { try database.projects.upsert(StoredProject(id: "p2", number: "1002")) }
            try expectMoved("an API key") { try database.projects.addAPIKey(project: "p1", keyHash: "h", name: "", environment: .production) }
            try expectMoved("an API key's removal") { try database.projects.removeAPIKey(project: "p1", keyHash: "h") }
            try expectMoved("a token") { try database.access.put(.token, id: "t1", record: [1]) }
            try expectMoved("a token's update") { _ = try database.access.update(.token, id: "t1", record: [2]) }
            try expectMoved("a session's end") { try database.access.delete(.session, id: "ses1") }
            try expectMoved("a change policy") {
                try database.access.putChangePolicy(StoredChangePolicy(project: "p1", namespace: .client, record: [1]))
            }
            try expectMoved("a publish") { try database.publishTag(1) }
        }
    }
}
