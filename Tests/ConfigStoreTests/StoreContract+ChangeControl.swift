import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import TestSupport
import Testing

/// Change requests and approval policies, on every engine.
extension StoreContract {
    func changeRequest(status: String = "open", at time: Date? = nil, tag: String = "a") -> StoredChangeRequest {
        StoredChangeRequest(project: "p1", namespace: .client, status: status, scheduleTime: time, record: Array(tag.utf8))
    }

    func changeRequestsAreKeptListedAndUpdatedByRevision() throws {
        let clock = ManualClock()
        let store = try fixture.make(clock: clock)
        let first = try store.insertChangeRequest(changeRequest(tag: "first"))
        let second = try store.insertChangeRequest(changeRequest(status: "scheduled", at: clock.now.addingTimeInterval(60)))
        #expect(first.id > 0 && second.id > first.id && first.revision == 1 && first.createTime == clock.now)
        #expect(try store.changeRequest(id: first.id) == first)
        #expect(try store.changeRequest(id: 999_999) == nil)
        #expect(try store.changeRequests(project: "p1", namespace: .client, status: nil, limit: 10).map(\.id) == [second.id, first.id])
        #expect(try store.changeRequests(project: "p1", namespace: .client, status: "open", limit: 10).map(\.id) == [first.id])
        #expect(try store.changeRequests(project: "p1", namespace: .server, status: nil, limit: 10).isEmpty)
        var approved = first
        approved.status = "approved"
        approved.record = [0, 1, 255]
        let updated = try #require(try store.updateChangeRequest(approved, expectedRevision: 1))
        #expect(updated.revision == 2 && updated.status == "approved" && updated.record == [0, 1, 255])
        #expect(try store.updateChangeRequest(approved, expectedRevision: 1) == nil, "a stale revision writes nothing")
        #expect(try store.changeRequest(id: first.id)?.revision == 2)
        #expect(try store.dueChangeRequests(now: clock.now).isEmpty)
        clock.advance(by: 60)
        #expect(try store.dueChangeRequests(now: clock.now).map(\.id) == [second.id])
    }

    func aPublishAppliesAChangeRequestInItsTransaction() throws {
        let store = try fixture.make()
        try store.publishTag(1)
        let request = try store.insertChangeRequest(changeRequest())
        func apply(_ revision: Int64, tag: Int) throws -> StoredVersion {
            try store.publish(
                project: "p1", namespace: .client, templateJSON: Array("{\"n\":\(tag)}".utf8), expectedVersion: 1,
                metadata: PublishMetadata(updateUser: "a@example.com",
                                          completes: ChangeRequestCompletion(id: request.id, expectedRevision: revision)))
        }
        #expect(throws: StoreError.changeRequestMoved(request.id)) { try apply(7, tag: 2) }
        #expect(try store.versionNumbers() == [1], "nothing was written")
        let version = try apply(1, tag: 2)
        let applied = try #require(try store.changeRequest(id: request.id))
        #expect(applied.status == "applied" && applied.appliedVersion == version.versionNumber && applied.revision == 2)
        // A second applier (another node) finds it applied: neither the version nor the request moves.
        #expect(throws: StoreError.self) { try apply(1, tag: 3) }
        #expect(try store.versionNumbers() == [2, 1])
        // A rollback applies one too.
        let rollback = try store.insertChangeRequest(changeRequest())
        let rolled = try store.rollback(project: "p1", namespace: .client, to: 1, metadata: PublishMetadata(
            completes: ChangeRequestCompletion(id: rollback.id, expectedRevision: 1)))
        #expect(try store.changeRequest(id: rollback.id)?.appliedVersion == rolled.versionNumber)
    }

    func policiesAreKeptPerTemplate() throws {
        let store = try fixture.make()
        let before = try store.changeToken()
        try store.putChangePolicy(StoredChangePolicy(project: "p1", namespace: .client, record: Array("1".utf8)))
        try store.putChangePolicy(StoredChangePolicy(project: "p1", namespace: .server, record: Array("2".utf8)))
        try store.putChangePolicy(StoredChangePolicy(project: "p1", namespace: .client, record: Array("3".utf8)))
        #expect(try store.changeToken() != before, "every worker hears of a policy")
        #expect(try store.changePolicies().map { String(decoding: $0.record, as: UTF8.self) } == ["3", "2"])
    }
}
