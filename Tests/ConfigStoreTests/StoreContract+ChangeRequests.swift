import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing
import TestSupport

/// Change requests, and a publish that applies one in its own transaction.
extension StoreContract {
    @Suite struct ChangeRequests {
        let fresh = FreshData()

        func changeRequest(status: String = "open", at time: Date? = nil, tag: String = "a") -> StoredChangeRequest {
            StoredChangeRequest(project: "p1", namespace: .client, status: status, scheduleTime: time, record: Array(tag.utf8))
        }

        @Test(arguments: StoreEngine.allCases) func changeRequestsAreKeptListedAndUpdatedByRevision(engine: StoreEngine) throws {
            let clock = ManualClock()
            let store = try fresh.fixture(engine).make(clock: clock).changeRequests
            let first = try store.insert(changeRequest(tag: "first"))
            let second = try store.insert(changeRequest(status: "scheduled", at: clock.now.addingTimeInterval(60)))
            #expect(first.id > 0 && second.id > first.id && first.revision == 1 && first.createTime == clock.now)
            #expect(try store.request(id: first.id) == first)
            #expect(try store.request(id: 999_999) == nil)
            #expect(try store.requests(project: "p1", namespace: .client, status: nil, limit: 10).map(\.id) == [second.id, first.id])
            #expect(try store.requests(project: "p1", namespace: .client, status: "open", limit: 10).map(\.id) == [first.id])
            #expect(try store.requests(project: "p1", namespace: .server, status: nil, limit: 10).isEmpty)
            var approved = first
            approved.status = "approved"
            approved.record = [0, 1, 255]
            let updated = try #require(try store.update(approved, expectedRevision: 1))
            #expect(updated.revision == 2 && updated.status == "approved" && updated.record == [0, 1, 255])
            #expect(try store.update(approved, expectedRevision: 1) == nil, "a stale revision writes nothing")
            #expect(try store.request(id: first.id)?.revision == 2)
            #expect(try store.due(at: clock.now).isEmpty)
            clock.advance(by: 60)
            #expect(try store.due(at: clock.now).map(\.id) == [second.id])
        }

        @Test(arguments: StoreEngine.allCases) func aPublishAppliesAChangeRequestInItsTransaction(engine: StoreEngine) throws {
            let database = try fresh.fixture(engine).make()
            let store = database.templates
            try store.publishTag(1)
            let request = try database.changeRequests.insert(changeRequest())
            func apply(_ revision: Int64, tag: Int) throws -> StoredVersion {
                try store.publish(
                    project: "p1", namespace: .client, templateJSON: Array("{\"n\":\(tag)}".utf8), expectedVersion: 1,
                    metadata: PublishMetadata(updateUser: "a@example.com",
                                              completes: ChangeRequestCompletion(id: request.id, expectedRevision: revision)))
            }
            #expect(throws: StoreError.changeRequestMoved(request.id)) { try apply(7, tag: 2) }
            #expect(try store.versionNumbers() == [1], "nothing was written")
            let version = try apply(1, tag: 2)
            let applied = try #require(try database.changeRequests.request(id: request.id))
            #expect(applied.status == "applied" && applied.appliedVersion == version.versionNumber && applied.revision == 2)
            // A second applier (another node) finds it applied: neither the version nor the request moves.
            #expect(throws: StoreError.self) { try apply(1, tag: 3) }
            #expect(try store.versionNumbers() == [2, 1])
            // A rollback applies one too.
            let rollback = try database.changeRequests.insert(changeRequest())
            let rolled = try store.rollback(project: "p1", namespace: .client, to: 1, metadata: PublishMetadata(
                completes: ChangeRequestCompletion(id: rollback.id, expectedRevision: 1)))
            #expect(try database.changeRequests.request(id: rollback.id)?.appliedVersion == rolled.versionNumber)
        }

        /// A conflicted request is edited onto the active version first: a publish that names it
        /// fails whole, as for a request that is applied, rejected or cancelled.
        @Test(arguments: StoreEngine.allCases) func aPublishCompletesNoConflictedOrFinalRequest(engine: StoreEngine) throws {
            let database = try fresh.fixture(engine).make()
            try database.publishTag(1)
            let conflicted = try database.changeRequests.insert(changeRequest(status: ChangeRequestStatus.conflicted.rawValue))
            #expect(throws: StoreError.changeRequestMoved(conflicted.id)) {
                try database.templates.publish(
                    project: "p1", namespace: .client, templateJSON: Array("{}".utf8), expectedVersion: 1,
                    metadata: PublishMetadata(completes: ChangeRequestCompletion(id: conflicted.id, expectedRevision: 1)))
            }
            #expect(try database.templates.versionNumbers() == [1], "nothing was written")
            #expect(try database.changeRequests.request(id: conflicted.id) == conflicted)
            for status in ChangeRequestStatus.allCases where status.isFinal {
                let final = try database.changeRequests.insert(changeRequest(status: status.rawValue))
                #expect(throws: StoreError.changeRequestMoved(final.id)) {
                    try database.templates.publish(
                        project: "p1", namespace: .client, templateJSON: Array("{}".utf8), expectedVersion: 1,
                        metadata: PublishMetadata(completes: ChangeRequestCompletion(id: final.id, expectedRevision: 1)))
                }
            }
            #expect(ChangeRequestStatus.completableByPublish == [.open, .approved, .scheduled])
        }
    }
}
