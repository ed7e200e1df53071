import ConfigCore
import ConfigStore
import Foundation
import TestSupport
import Testing

@Suite final class CanaryStoreTests {
    let directory: TemporaryDirectory
    let store: SQLiteTemplateStore
    let admin = PublishMetadata(updateUser: "ops@example.com")

    init() throws {
        directory = try TemporaryDirectory()
        store = try SQLiteTemplateStore.make(in: directory.url, retention: 3)
        try store.publishTag(1)
    }

    @discardableResult
    func startCanary(_ tag: Int, microPercent: Int64 = 5_000_000, expected: Int64? = nil) throws -> StoredCanary {
        try store.publishCanary(
            project: "p1", namespace: TemplateNamespace.client, templateJSON: Array("{\"n\":\(tag)}".utf8),
            expectedVersion: expected, microPercent: microPercent, seed: "s\(tag)", promoteAt: nil, metadata: admin).canary
    }

    @Test func aCanaryIsStoredButNotActive() throws {
        let canary = try startCanary(2, expected: 1)
        #expect(canary.canaryVersion == 2 && canary.microPercent == 5_000_000 && canary.seed == "s2")
        #expect(try store.activeVersionNumber(project: "p1", namespace: TemplateNamespace.client) == 1)
        #expect(try store.canary(project: "p1", namespace: TemplateNamespace.client) == canary)
        let state = try store.headState(project: "p1", namespace: TemplateNamespace.client)
        #expect(state.active == 1 && state.canary == canary)
        let version = try #require(try store.version(project: "p1", namespace: TemplateNamespace.client, number: 2))
        #expect(version.canaryAction == CanaryAction.canary && version.templateText == "{\"n\":2}")
        #expect(try store.listVersions(project: "p1", namespace: TemplateNamespace.client).versions.map(\.versionNumber) == [2, 1])
    }

    @Test func publishesAndRollbacksWaitWhileACanaryRuns() throws {
        try startCanary(2)
        #expect(throws: StoreError.canaryRunning(version: 2)) { try self.store.publishTag(3) }
        #expect(throws: StoreError.canaryRunning(version: 2)) {
            try self.store.rollback(project: "p1", namespace: TemplateNamespace.client, to: 1, metadata: self.admin)
        }
        #expect(throws: StoreError.canaryRunning(version: 2)) { try self.startCanary(3) }
        #expect(throws: StoreError.versionMismatch(current: 1)) {
            try self.store.publishCanary(project: "p1", namespace: TemplateNamespace.client, templateJSON: [], expectedVersion: 7,
                                         microPercent: 1, seed: "x", promoteAt: nil, metadata: self.admin)
        }
    }

    @Test func theShareOnlyGrows() throws {
        try startCanary(2)
        let raised = try store.setCanaryShare(project: "p1", namespace: TemplateNamespace.client, expectedCanary: 2,
                                              microPercent: 30_000_000, updateUser: "lead@example.com")
        #expect(raised.microPercent == 30_000_000 && raised.updateUser == "lead@example.com" && raised.seed == "s2")
        #expect(throws: StoreError.self) {
            try self.store.setCanaryShare(project: "p1", namespace: TemplateNamespace.client, expectedCanary: 2,
                                          microPercent: 10_000_000, updateUser: nil)
        }
        #expect(throws: StoreError.canaryMismatch(current: 2)) {
            try self.store.setCanaryShare(project: "p1", namespace: TemplateNamespace.client, expectedCanary: 1,
                                          microPercent: 40_000_000, updateUser: nil)
        }
        #expect(throws: StoreError.self) {
            try self.store.setCanaryShare(project: "p1", namespace: TemplateNamespace.client, expectedCanary: nil,
                                          microPercent: 100_000_001, updateUser: nil)
        }
    }

    @Test func promotionCopiesTheCanaryForEveryone() throws {
        try startCanary(2)
        let promoted = try store.promoteCanary(project: "p1", namespace: TemplateNamespace.client, expectedCanary: 2, metadata: admin)
        #expect(promoted.versionNumber == 3 && promoted.templateText == "{\"n\":2}")
        #expect(promoted.canaryAction == CanaryAction.promotion && promoted.canarySource == 2 && promoted.rollbackSource == nil)
        #expect(promoted.updateUser == "ops@example.com" && promoted.description == "Promote canary version 2 to every instance")
        #expect(try store.activeVersionNumber(project: "p1", namespace: TemplateNamespace.client) == 3)
        #expect(try store.canary(project: "p1", namespace: TemplateNamespace.client) == nil)
        #expect(try store.publishTag(4).versionNumber == 4)
    }

    @Test func abortCopiesTheStableVersionBack() throws {
        try startCanary(2)
        let aborted = try store.abortCanary(project: "p1", namespace: TemplateNamespace.client, expectedCanary: nil, metadata: admin)
        #expect(aborted.versionNumber == 3 && aborted.templateText == "{\"n\":1}")
        #expect(aborted.updateType == UpdateType.rollback && aborted.rollbackSource == 1)
        #expect(aborted.canaryAction == CanaryAction.abort && aborted.canarySource == 2)
        #expect(try store.activeVersionNumber(project: "p1", namespace: TemplateNamespace.client) == 3)
        #expect(throws: StoreError.noCanary) {
            try self.store.abortCanary(project: "p1", namespace: TemplateNamespace.client, expectedCanary: nil, metadata: self.admin)
        }
        #expect(throws: StoreError.noCanary) {
            try self.store.promoteCanary(project: "p1", namespace: TemplateNamespace.client, expectedCanary: nil, metadata: self.admin)
        }
    }

    @Test func retentionNeverPrunesTheStableVersion() throws {
        let single = try SQLiteTemplateStore.make(in: directory.url.appendingPathComponent("one"), retention: 1)
        try single.publishTag(1)
        _ = try single.publishCanary(project: "p1", namespace: TemplateNamespace.client, templateJSON: Array("{}".utf8),
                                     expectedVersion: 1, microPercent: 1, seed: "s", promoteAt: nil, metadata: admin)
        #expect(try single.activeVersion(project: "p1", namespace: TemplateNamespace.client)?.versionNumber == 1)
        let aborted = try single.abortCanary(project: "p1", namespace: TemplateNamespace.client, expectedCanary: 2, metadata: admin)
        #expect(aborted.templateText == "{\"n\":1}")
        #expect(try single.listVersions(project: "p1", namespace: TemplateNamespace.client).versions.map(\.versionNumber) == [3])
    }

    @Test func aFirstVersionCannotBeACanary() throws {
        try store.upsertProject(StoredProject(id: "p2", number: "1002", displayName: "Two"))
        #expect(throws: StoreError.self) {
            try self.store.publishCanary(project: "p2", namespace: TemplateNamespace.client, templateJSON: [], expectedVersion: nil,
                                         microPercent: 1, seed: "x", promoteAt: nil, metadata: self.admin)
        }
    }
}
