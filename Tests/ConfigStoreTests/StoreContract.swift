import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing
import TestSupport

/// The behaviour every `TemplateStore` shares, written once against `any TemplateStore`;
/// `StoreContractTests` runs every case on each engine, on fresh data.
struct StoreContract {
    let fixture: any StoreFixture

    func answersUntilClosedThenUnavailable() throws {
        let store = try fixture.make()
        try store.publishTag(1)
        store.close()
        store.close()  // idempotent
        for call in [{ _ = try store.publishTag(2) }, { _ = try store.heads() }, { _ = try store.projects() }] {
            let error = try #require(throws: StoreError.self) { try call() }
            guard case .unavailable(let reason) = error else {
                Issue.record("expected unavailable after close, got \(error)")
                continue
            }
            #expect(reason.contains("closed"))
        }
        let reopened = try fixture.make(addProject: false)
        #expect(try reopened.headState(project: "p1", namespace: .client).active == 1)
    }

    func projectsAndAPIKeys() throws {
        let store = try fixture.make()
        let p1 = StoredProject(id: "p1", number: "1001", displayName: "Project One")
        #expect(try store.projects() == [p1])

        let renamed = StoredProject(id: "p1", number: "1002", displayName: "Renamed", percentSeed: "seed")
        try store.upsertProject(renamed)
        try store.upsertProject(StoredProject(id: "a0", number: "7"))
        try store.upsertProject(StoredProject(id: "Z9", number: "8"))
        // Byte order, whatever the database's collation.
        #expect(try store.projects() == [StoredProject(id: "Z9", number: "8"), StoredProject(id: "a0", number: "7"), renamed])

        #expect(throws: StoreError.projectNumberTaken(number: "7", project: "a0")) {
            try store.upsertProject(StoredProject(id: "p2", number: "7"))
        }
        for (id, number) in [("p2", "12a"), ("", "12"), ("123", "12"), (String(repeating: "a", count: 129), "12")] {
            let error = try #require(throws: StoreError.self) { try store.upsertProject(StoredProject(id: id, number: number)) }
            guard case .invalidArgument = error else {
                Issue.record("expected invalidArgument for id '\(id)' number '\(number)', got \(error)")
                continue
            }
        }

        try store.addAPIKey(project: "p1", keyHash: "h1", name: "web")
        try store.addAPIKey(project: "p1", keyHash: "h2", name: "ios")
        try store.addAPIKey(project: "p1", keyHash: "h1", name: "web renamed")
        try store.addAPIKey(project: "a0", keyHash: "h1", name: "shared")
        #expect(try store.apiKeys(project: "p1").map(\.keyHash) == ["h1", "h2"])
        #expect(try store.apiKeys(project: "a0").map(\.keyHash) == ["h1"])  // a hash may serve several projects
        #expect(try store.removeAPIKey(project: "p1", keyHash: "h2"))
        #expect(try !store.removeAPIKey(project: "p1", keyHash: "h2"))
        #expect(try store.apiKeys(project: "p1").map { "\($0.keyHash):\($0.name)" } == ["h1:web renamed"])
        #expect(throws: StoreError.projectNotFound("ghost")) {
            try store.addAPIKey(project: "ghost", keyHash: "h", name: "")
        }
    }

    func accessRecordsAreKeptByKindAndID() throws {
        let clock = ManualClock()
        let store = try fixture.make(clock: clock)
        #expect(try store.accessRecords().isEmpty)
        let before = try store.changeToken()
        try store.putAccessRecord(.principal, id: "svc-ci", record: Array(#"{"n":1}"#.utf8) + [0, 0xFF])
        try store.putAccessRecord(.token, id: "a1", record: Array("t".utf8))
        try store.putAccessRecord(.principal, id: "svc-ci", record: Array(#"{"n":2}"#.utf8))
        #expect(try store.changeToken() != before, "every worker hears of a record written")
        let records = try store.accessRecords()
        #expect(records.map { "\($0.kind.rawValue)/\($0.id)" } == ["principal/svc-ci", "token/a1"])
        #expect(records.first?.record == Array(#"{"n":2}"#.utf8), "a record is replaced whole, bytes as given")
        #expect(records.first?.updateTime == clock.now)
        #expect(try store.updateAccessRecord(.token, id: "a1", record: Array("u".utf8)))
        #expect(try store.accessRecords().last?.record == Array("u".utf8))
        #expect(try store.deleteAccessRecord(.token, id: "a1"))
        #expect(try !store.deleteAccessRecord(.token, id: "a1"))
        #expect(try !store.updateAccessRecord(.token, id: "a1", record: []), "an update does not bring a deleted record back")
        #expect(try store.accessRecords().count == 1)
        for id in ["", String(repeating: "x", count: 513)] {
            let error = try #require(throws: StoreError.self) { try store.putAccessRecord(.membership, id: id, record: []) }
            guard case .invalidArgument = error else {
                Issue.record("expected invalidArgument, got \(error)")
                continue
            }
        }
    }

    func aSignInAttemptIsTakenOnceBeforeItExpires() throws {
        let clock = ManualClock()
        let store = try fixture.make(clock: clock)
        #expect(try store.putSignInAttempt(stateHash: "s1", record: [1, 2, 0, 255], expireTime: clock.now.addingTimeInterval(600),
                                           maxPending: 2))
        #expect(try store.putSignInAttempt(stateHash: "s2", record: [2], expireTime: clock.now.addingTimeInterval(60), maxPending: 2))
        #expect(try !store.putSignInAttempt(stateHash: "s3", record: [3], expireTime: clock.now.addingTimeInterval(60), maxPending: 2),
                "beyond the bound nothing is kept")
        #expect(try store.takeSignInAttempt(stateHash: "s3") == nil)
        #expect(try store.takeSignInAttempt(stateHash: "s1") == [1, 2, 0, 255])
        #expect(try store.takeSignInAttempt(stateHash: "s1") == nil, "a state is used once")
        #expect(try store.takeSignInAttempt(stateHash: "unknown") == nil)
        clock.advance(by: 61)
        #expect(try store.takeSignInAttempt(stateHash: "s2") == nil, "an expired attempt is refused")
        #expect(try store.putSignInAttempt(stateHash: "s2", record: [3], expireTime: clock.now.addingTimeInterval(60), maxPending: 2))
        #expect(try store.takeSignInAttempt(stateHash: "s2") == [3], "the expired one was removed, not kept")
        try store.putAccessRecord(.session, id: "ses1", record: [7])
        #expect(try store.accessRecords().map(\.kind) == [.session])
    }

    func theAuditLogAppendsFiltersPagesAndPrunes() throws {
        let store = try fixture.make()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        func entry(_ index: Int, actor: String, action: String, project: String?) -> AuditEntry {
            AuditEntry(time: start.addingTimeInterval(Double(index)), actorID: actor, actorName: actor.uppercased(), origin: "API",
                       requestID: "r\(index)", clientAddress: "127.0.0.1", action: action, project: project, namespace: nil,
                       target: nil, versionNumber: index % 2 == 0 ? Int64(index) : nil,
                       diff: index == 0 ? Array(#"{"d":1}"#.utf8) + [0] : nil, outcome: "ok")
        }
        var ids: [Int64] = []
        for index in 0..<6 {
            ids.append(try store.appendAudit(entry(index, actor: index < 4 ? "a" : "b", action: index % 3 == 0 ? "x" : "y",
                                                   project: index == 5 ? nil : "p1")))
        }
        #expect(ids == ids.sorted() && Set(ids).count == 6, "ids grow")
        let all = try store.auditEntries(AuditQuery()).entries
        #expect(all.map(\.requestID) == ["r5", "r4", "r3", "r2", "r1", "r0"], "newest first")
        var first = entry(0, actor: "a", action: "x", project: "p1")
        first.id = ids[0]
        #expect(all.last == first, "every field back as given, a diff's bytes and all")
        #expect(all[0].project == nil && all[1].diff == nil && all[1].versionNumber == 4)
        #expect(try store.auditEntries(AuditQuery(actorID: "a", action: "x")).entries.map(\.requestID) == ["r3", "r0"])
        #expect(try store.auditEntries(AuditQuery(project: "p1", startTime: start.addingTimeInterval(2),
                                                  endTime: start.addingTimeInterval(4))).entries.map(\.requestID) == ["r3", "r2"])
        let page1 = try store.auditEntries(AuditQuery(pageSize: 4))
        #expect(page1.entries.count == 4)
        let page2 = try store.auditEntries(AuditQuery(pageSize: 4, pageToken: page1.nextPageToken))
        #expect(page2.entries.map(\.requestID) == ["r1", "r0"] && page2.nextPageToken == nil)
        #expect(throws: StoreError.invalidPageToken("nope")) { try store.auditEntries(AuditQuery(pageToken: "nope")) }
        #expect(throws: StoreError.self) { try store.auditEntries(AuditQuery(pageSize: 0)) }
        #expect(try store.pruneAudit(before: start.addingTimeInterval(2)) == 2)
        #expect(try store.auditEntries(AuditQuery()).entries.map(\.requestID) == ["r5", "r4", "r3", "r2"])
    }

    /// An entry kept late (a refusal queued behind a change made after it) takes the time of
    /// the entry ahead of it: in id order, times never go back.
    func anAuditEntryIsNeverTimedBeforeTheOneAheadOfIt() throws {
        let store = try fixture.make()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for (index, offset) in [0.0, 5.0, 2.0, 7.0].enumerated() {
            try store.appendAudit(AuditEntry(time: start.addingTimeInterval(offset), actorID: "a", actorName: "A", origin: "API",
                                             requestID: "r\(index)", clientAddress: "127.0.0.1", action: "x", project: nil,
                                             namespace: nil, target: nil, versionNumber: nil, diff: nil, outcome: "ok"))
        }
        let times = try store.auditEntries(AuditQuery()).entries.reversed().map { $0.time.timeIntervalSince(start) }
        #expect(times == [0, 5, 5, 7])
    }

    func publishNumbersVersionsFromOneAndMovesTheHead() throws {
        let clock = ManualClock()
        let store = try fixture.make(clock: clock)
        #expect(try store.activeVersion(project: "p1", namespace: .client) == nil)
        #expect(try store.headState(project: "p1", namespace: .client).active == nil)

        let json = Array(#"{"a":"\u0000"}"#.utf8) + [0, 0xFF]  // bytes kept exactly, NUL and all
        let first = try store.publish(
            project: "p1", namespace: .client, templateJSON: json, expectedVersion: 0,
            metadata: PublishMetadata(updateUser: "me@example.com", description: "first", updateOrigin: "CONSOLE"))
        #expect(first.versionNumber == 1)
        #expect(first.updateTime == clock.now)
        #expect(first.updateType == .incrementalUpdate)
        #expect(first.rollbackSource == nil && first.canaryAction == nil && first.canarySource == nil)
        #expect(try store.activeVersion(project: "p1", namespace: .client) == first)
        #expect(try store.version(project: "p1", namespace: .client, number: 1) == first)

        clock.advance(by: 1)
        let forced = try store.publish(
            project: "p1", namespace: .client, templateJSON: [], expectedVersion: nil,
            metadata: PublishMetadata(updateType: .forcedUpdate))
        #expect(forced.versionNumber == 2 && forced.updateType == .forcedUpdate)
        #expect(forced.templateJSON == [])
        #expect(forced.updateUser == nil && forced.description == nil)
        #expect(try store.version(project: "p1", namespace: .client, number: 2) == forced)

        // Namespaces are versioned independently.
        #expect(try store.publishTag(1, namespace: .server).versionNumber == 1)
        #expect(try store.heads() == [
            TemplateKey(project: "p1", namespace: .client): 2, TemplateKey(project: "p1", namespace: .server): 1,
        ])
    }

    func updateTimeNeverGoesBackwards() throws {
        let clock = ManualClock()
        let store = try fixture.make(clock: clock)
        let first = try store.publishTag(1)
        clock.advance(by: -3600)  // the wall clock steps back
        let second = try store.publishTag(2)
        #expect(second.updateTime == first.updateTime)
        clock.advance(by: 7200)
        #expect(try store.publishTag(3).updateTime == clock.now)
    }

    func publishChecksTheExpectedVersion() throws {
        let store = try fixture.make()
        #expect(throws: StoreError.versionMismatch(current: 0)) {
            try store.publish(project: "p1", namespace: .client, templateJSON: [], expectedVersion: 3, metadata: PublishMetadata())
        }
        #expect(try store.heads().isEmpty)  // the refused first publish left no head behind
        try store.publishTag(1)
        try store.publishTag(2)
        #expect(throws: StoreError.versionMismatch(current: 2)) {
            try store.publish(project: "p1", namespace: .client, templateJSON: [], expectedVersion: 1, metadata: PublishMetadata())
        }
        let next = try store.publish(
            project: "p1", namespace: .client, templateJSON: [1], expectedVersion: 2, metadata: PublishMetadata())
        #expect(next.versionNumber == 3)
    }

    func publishRejectsBadInput() throws {
        let store = try fixture.make()
        #expect(throws: StoreError.projectNotFound("ghost")) {
            try store.publish(project: "ghost", namespace: .client, templateJSON: [], expectedVersion: nil,
                              metadata: PublishMetadata())
        }
        for updateType in [UpdateType.rollback, .unspecified, UpdateType(rawValue: "nonsense")] {
            let error = try #require(throws: StoreError.self) {
                try store.publish(project: "p1", namespace: .client, templateJSON: [], expectedVersion: nil,
                                  metadata: PublishMetadata(updateType: updateType))
            }
            #expect(error.description.contains("updateType"))
        }
        #expect(throws: StoreError.self) { try fixture.open(retention: 0, clock: nil) }
        #expect(try store.heads().isEmpty)
    }

    func rollbackCopiesAnOlderVersionAsANewOne() throws {
        let store = try fixture.make()
        for tag in 1...3 { try store.publishTag(tag) }
        let rolledBack = try store.rollback(
            project: "p1", namespace: .client, to: 1,
            metadata: PublishMetadata(updateUser: "ops@example.com", updateType: .forcedUpdate))
        #expect(rolledBack.versionNumber == 4)
        #expect(rolledBack.updateType == .rollback)
        #expect(rolledBack.rollbackSource == 1)
        #expect(rolledBack.description == "Rollback to version 1")
        #expect(rolledBack.updateUser == "ops@example.com")
        #expect(rolledBack.templateText == #"{"n":1}"#)
        #expect(try store.activeVersion(project: "p1", namespace: .client) == rolledBack)

        #expect(throws: StoreError.versionNotFound(9)) {
            try store.rollback(project: "p1", namespace: .client, to: 9, metadata: PublishMetadata())
        }
        #expect(throws: StoreError.versionNotFound(0)) {
            try store.rollback(project: "p1", namespace: .client, to: 0, metadata: PublishMetadata())
        }
        #expect(throws: StoreError.rollbackTargetNotOlder(target: 4, current: 4)) {
            try store.rollback(project: "p1", namespace: .client, to: 4, metadata: PublishMetadata())
        }
        #expect(throws: StoreError.versionNotFound(1)) {
            try store.rollback(project: "p1", namespace: .server, to: 1, metadata: PublishMetadata())
        }
        #expect(throws: StoreError.projectNotFound("ghost")) {
            try store.rollback(project: "ghost", namespace: .client, to: 1, metadata: PublishMetadata())
        }
    }

    func retentionKeepsTheNewestVersionsIncludingTheActiveOne(retention: Int) throws {
        let store = try fixture.make(retention: retention)
        #expect(store.retention == retention)
        for tag in 1...12 { try store.publishTag(tag) }
        try store.publishTag(1, namespace: .server)

        #expect(try store.versionNumbers() == Array((13 - Int64(retention))...12).reversed())
        #expect(try store.activeVersion(project: "p1", namespace: .client)?.templateText == #"{"n":12}"#)
        #expect(try store.version(project: "p1", namespace: .client, number: 12 - Int64(retention)) == nil)
        #expect(try store.versionNumbers(.server) == [1])
        #expect(throws: StoreError.versionNotFound(2)) {
            try store.rollback(project: "p1", namespace: .client, to: 2, metadata: PublishMetadata())
        }
        if retention > 1 {
            let rolledBack = try store.rollback(project: "p1", namespace: .client, to: 9, metadata: PublishMetadata())
            #expect(rolledBack.versionNumber == 13)
            #expect(try store.versionNumbers() == Array((14 - Int64(retention))...13).reversed())
        }
    }

    func reopeningKeepsEverything() throws {
        let store = try fixture.make()
        try store.addAPIKey(project: "p1", keyHash: "hash", name: "key")
        let published = try (1...3).map { try store.publishTag($0) }
        let rolledBack = try store.rollback(project: "p1", namespace: .client, to: 2, metadata: PublishMetadata())
        store.close()

        let reopened = try fixture.make(addProject: false)
        #expect(try reopened.projects() == [StoredProject(id: "p1", number: "1001", displayName: "Project One")])
        #expect(try reopened.apiKeys(project: "p1").map(\.keyHash) == ["hash"])
        #expect(try reopened.listVersions(project: "p1", namespace: .client, includeTemplateJSON: true).versions
            == [rolledBack] + published.reversed())
        #expect(try reopened.publishTag(5).versionNumber == 5)
    }

    func changeTokenMovesOnEveryCommitFromAnyStore() throws {
        let store = try fixture.make()
        let other = try fixture.make(addProject: false)
        let start = try store.changeToken()
        #expect(try store.changeToken() == start)

        try other.publishTag(1)
        let afterOther = try store.changeToken()
        #expect(afterOther != start)
        #expect(try store.heads() == [TemplateKey(project: "p1", namespace: .client): 1])

        try store.publishTag(2)  // the store's own writes count too
        let afterOwn = try store.changeToken()
        #expect(afterOwn != afterOther)
        #expect(try other.heads() == [TemplateKey(project: "p1", namespace: .client): 2])

        try other.addAPIKey(project: "p1", keyHash: "k", name: "")
        #expect(try store.changeToken() != afterOwn)
        let beforeFailure = try store.changeToken()
        #expect(throws: StoreError.versionMismatch(current: 2)) {
            try store.publish(project: "p1", namespace: .client, templateJSON: [], expectedVersion: 9, metadata: PublishMetadata())
        }
        #expect(try store.changeToken() == beforeFailure)  // nothing committed, nothing changed
    }
}
