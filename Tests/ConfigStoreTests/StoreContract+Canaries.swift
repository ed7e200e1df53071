import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing

/// Canaries: every case starts from templates with retention 3 and version 1 published.
extension StoreContract.Templates {
    private static let admin = PublishMetadata(updateUser: "ops@example.com")

    /// The templates of fresh data of `engine`, with retention `retention` and version 1 published.
    private func storeWithOneVersion(_ engine: StoreEngine, retention: Int = 3) throws -> any TemplateStore {
        let store = try templates(engine, retention: retention)
        try store.publishTag(1)
        return store
    }

    @discardableResult
    private func startCanary(
        _ tag: Int, on store: any TemplateStore, microPercent: Int64 = 5_000_000, expected: Int64? = nil
    ) throws -> StoredCanary {
        try store.publishCanary(
            project: "p1", namespace: .client, templateJSON: Array("{\"n\":\(tag)}".utf8), expectedVersion: expected,
            microPercent: microPercent, seed: "s\(tag)", promoteAt: nil, metadata: Self.admin
        ).canary
    }

    @Test(arguments: StoreEngine.allCases) func aCanaryIsStoredButNotActive(engine: StoreEngine) throws {
        let store = try storeWithOneVersion(engine)
        let promoteAt = Date(timeIntervalSince1970: 1_900_000_000.5)
        let (version, canary) = try store.publishCanary(
            project: "p1", namespace: .client, templateJSON: Array("{\"n\":2}".utf8), expectedVersion: 1,
            microPercent: 5_000_000, seed: "s2", promoteAt: promoteAt, metadata: Self.admin)
        #expect(canary.canaryVersion == 2 && canary.microPercent == 5_000_000 && canary.seed == "s2")
        #expect(canary.promoteAt == promoteAt && canary.startTime == version.updateTime)
        let state = try store.headState(project: "p1", namespace: .client)
        #expect(state.active == 1 && state.canary == canary)
        let stored = try #require(try store.version(project: "p1", namespace: .client, number: 2))
        #expect(stored == version && stored.canaryAction == .canary && stored.templateText == "{\"n\":2}")
        #expect(try store.versionNumbers() == [2, 1])
        #expect(try store.heads() == [TemplateKey(project: "p1", namespace: .client): 1])

        let none = try store.headState(project: "p1", namespace: .server)
        #expect(none.active == nil && none.canary == nil)
    }

    @Test(arguments: StoreEngine.allCases) func publishesAndRollbacksWaitWhileACanaryRuns(engine: StoreEngine) throws {
        let store = try storeWithOneVersion(engine)
        try startCanary(2, on: store)
        #expect(throws: StoreError.canaryRunning(version: 2)) { try store.publishTag(3) }
        #expect(throws: StoreError.canaryRunning(version: 2)) {
            try store.rollback(project: "p1", namespace: .client, to: 1, metadata: Self.admin)
        }
        #expect(throws: StoreError.canaryRunning(version: 2)) { try startCanary(3, on: store) }
        #expect(throws: StoreError.versionMismatch(current: 1)) {
            try store.publishCanary(project: "p1", namespace: .client, templateJSON: [], expectedVersion: 7,
                                    microPercent: 1, seed: "x", promoteAt: nil, metadata: Self.admin)
        }
    }

    @Test(arguments: StoreEngine.allCases) func theShareOnlyGrows(engine: StoreEngine) throws {
        let store = try storeWithOneVersion(engine)
        try startCanary(2, on: store)
        let raised = try store.setCanaryShare(project: "p1", namespace: .client, expectedCanary: 2,
                                              microPercent: 30_000_000, updateUser: "lead@example.com")
        #expect(raised.microPercent == 30_000_000 && raised.updateUser == "lead@example.com" && raised.seed == "s2")
        #expect(try store.headState(project: "p1", namespace: .client).canary == raised)
        #expect(throws: StoreError.self) {
            try store.setCanaryShare(project: "p1", namespace: .client, expectedCanary: 2,
                                     microPercent: 10_000_000, updateUser: nil)
        }
        #expect(throws: StoreError.canaryMismatch(current: 2)) {
            try store.setCanaryShare(project: "p1", namespace: .client, expectedCanary: 1,
                                     microPercent: 40_000_000, updateUser: nil)
        }
        for share: Int64 in [0, 100_000_001] {
            #expect(throws: StoreError.self) {
                try store.setCanaryShare(project: "p1", namespace: .client, expectedCanary: nil,
                                         microPercent: share, updateUser: nil)
            }
        }
        #expect(throws: StoreError.noCanary) {
            try store.setCanaryShare(project: "p1", namespace: .server, expectedCanary: nil,
                                     microPercent: 40_000_000, updateUser: nil)
        }
    }

    @Test(arguments: StoreEngine.allCases) func promotionCopiesTheCanaryForEveryone(engine: StoreEngine) throws {
        let store = try storeWithOneVersion(engine)
        try startCanary(2, on: store)
        let promoted = try store.promoteCanary(project: "p1", namespace: .client, expectedCanary: 2, metadata: Self.admin)
        #expect(promoted.versionNumber == 3 && promoted.templateText == "{\"n\":2}")
        #expect(promoted.canaryAction == .promotion && promoted.canarySource == 2 && promoted.rollbackSource == nil)
        #expect(promoted.updateUser == "ops@example.com" && promoted.description == "Promote canary version 2 to every instance")
        let state = try store.headState(project: "p1", namespace: .client)
        #expect(state.active == 3 && state.canary == nil)
        #expect(try store.publishTag(4).versionNumber == 4)
    }

    @Test(arguments: StoreEngine.allCases) func abortCopiesTheStableVersionBack(engine: StoreEngine) throws {
        let store = try storeWithOneVersion(engine)
        try startCanary(2, on: store)
        #expect(throws: StoreError.canaryMismatch(current: 2)) {
            try store.abortCanary(project: "p1", namespace: .client, expectedCanary: 5, metadata: Self.admin)
        }
        let aborted = try store.abortCanary(project: "p1", namespace: .client, expectedCanary: nil, metadata: Self.admin)
        #expect(aborted.versionNumber == 3 && aborted.templateText == "{\"n\":1}")
        #expect(aborted.updateType == .rollback && aborted.rollbackSource == 1)
        #expect(aborted.canaryAction == .abort && aborted.canarySource == 2)
        #expect(aborted.description == "Abort canary version 2: back to version 1")
        #expect(try store.headState(project: "p1", namespace: .client).active == 3)
        #expect(throws: StoreError.noCanary) {
            try store.abortCanary(project: "p1", namespace: .client, expectedCanary: nil, metadata: Self.admin)
        }
        #expect(throws: StoreError.noCanary) {
            try store.promoteCanary(project: "p1", namespace: .client, expectedCanary: nil, metadata: Self.admin)
        }
        #expect(throws: StoreError.projectNotFound("ghost")) {
            try store.promoteCanary(project: "ghost", namespace: .client, expectedCanary: nil, metadata: Self.admin)
        }
    }

    @Test(arguments: StoreEngine.allCases) func retentionNeverPrunesTheStableVersion(engine: StoreEngine) throws {
        let store = try storeWithOneVersion(engine, retention: 1)
        _ = try store.publishCanary(project: "p1", namespace: .client, templateJSON: Array("{}".utf8),
                                    expectedVersion: 1, microPercent: 1, seed: "s", promoteAt: nil, metadata: Self.admin)
        #expect(try store.activeVersion(project: "p1", namespace: .client)?.versionNumber == 1)
        #expect(try store.versionNumbers() == [2, 1])
        let aborted = try store.abortCanary(project: "p1", namespace: .client, expectedCanary: 2, metadata: Self.admin)
        #expect(aborted.templateText == "{\"n\":1}")
        #expect(try store.versionNumbers() == [3])
    }

    @Test(arguments: StoreEngine.allCases) func aFirstVersionCannotBeACanary(engine: StoreEngine) throws {
        let database = try fresh.fixture(engine).make()
        try database.projects.upsert(StoredProject(id: "p2", number: "1002", displayName: "Two"))
        let store = database.templates
        try store.publishTag(1)
        let error = try #require(throws: StoreError.self) {
            try store.publishCanary(project: "p2", namespace: .client, templateJSON: [], expectedVersion: nil,
                                    microPercent: 1, seed: "x", promoteAt: nil, metadata: Self.admin)
        }
        guard case .invalidArgument = error else {
            Issue.record("expected invalidArgument, got \(error)")
            return
        }
        #expect(try store.heads() == [TemplateKey(project: "p1", namespace: .client): 1])
    }
}
