import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing
import TestSupport

/// Templates: publishing, rollback and retention. Canaries, listings and concurrent writers are
/// in the files beside this one.
extension StoreContract {
    @Suite struct Templates {
        let fresh = FreshData()

        /// The templates of fresh data of `engine`, with project p1.
        func templates(_ engine: StoreEngine, retention: Int = 300, clock: ManualClock? = nil) throws -> any TemplateStore {
            try fresh.fixture(engine).make(retention: retention, clock: clock).templates
        }

        @Test(arguments: StoreEngine.allCases) func publishNumbersVersionsFromOneAndMovesTheHead(engine: StoreEngine) throws {
            let clock = ManualClock()
            let store = try templates(engine, clock: clock)
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

        @Test(arguments: StoreEngine.allCases) func updateTimeNeverGoesBackwards(engine: StoreEngine) throws {
            let clock = ManualClock()
            let store = try templates(engine, clock: clock)
            let first = try store.publishTag(1)
            clock.advance(by: -3600)  // the wall clock steps back
            let second = try store.publishTag(2)
            #expect(second.updateTime == first.updateTime)
            clock.advance(by: 7200)
            #expect(try store.publishTag(3).updateTime == clock.now)
        }

        @Test(arguments: StoreEngine.allCases) func publishChecksTheExpectedVersion(engine: StoreEngine) throws {
            let store = try templates(engine)
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

        @Test(arguments: StoreEngine.allCases) func publishRejectsBadInput(engine: StoreEngine) throws {
            let fixture = try fresh.fixture(engine)
            let store = try fixture.make().templates
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

        @Test(arguments: StoreEngine.allCases) func rollbackCopiesAnOlderVersionAsANewOne(engine: StoreEngine) throws {
            let store = try templates(engine)
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

        @Test(arguments: StoreEngine.allCases, [1, 5])
        func retentionKeepsTheNewestVersionsIncludingTheActiveOne(engine: StoreEngine, retention: Int) throws {
            let store = try templates(engine, retention: retention)
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
    }
}
