import ConfigCore
@testable import ServerCore
import ConfigStore
import Foundation
import Logging
import TestSupport
import Testing

/// The registry answers from memory while no change was acknowledged, and never marks as seen
/// a change it has not read: the rules behind read-your-writes across workers.
@Suite final class TemplateRegistryTests {
    let directory: TemporaryDirectory
    let store: SQLiteConfigDatabase
    let counters = ChangeCounters.local()
    let registry: TemplateRegistry
    let projects = ProjectDirectory()
    let logger: Logger
    let key = TemplateKey(project: "demo", namespace: .client)

    init() throws {
        directory = try TemporaryDirectory("rcs-registry")
        store = try SQLiteConfigDatabase(databasePath: directory.url.appendingPathComponent("db.sqlite").path,
                                      migrationsDirectory: try #require(Migrator.defaultMigrationsDirectory(engine: "sqlite")))
        let project = StoredProject(id: "demo", number: "424242", displayName: "Demo", percentSeed: "")
        try store.projects.upsert(project)
        projects.add(project)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        self.logger = logger
        registry = TemplateRegistry(store: store.templates, projects: projects, counters: counters, logger: logger)
    }

    deinit {
        store.close()
    }

    /// Another worker's publish: committed, then counted.
    @discardableResult
    func publishElsewhere(_ value: String) throws -> StoredVersion {
        let stored = try store.templates.publish(project: "demo", namespace: .client,
                                       templateJSON: Array("{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"\(value)\"}}}}".utf8),
                                       expectedVersion: nil, metadata: PublishMetadata())
        counters.bump(key)
        return stored
    }

    @Test func aKeyNeverLoadedIsNotCurrentAndNothingPublishedLoadsAsNone() {
        #expect(!registry.isCurrent(key))
        #expect(registry.reload(key))
        #expect(registry.isCurrent(key))
        #expect(registry.active(key) == nil)
    }

    @Test func anotherWorkersPublishMakesTheEntryStaleUntilReloaded() throws {
        try publishElsewhere("one")
        #expect(registry.reload(key))
        #expect(registry.isCurrent(key) && registry.currentVersion(key) == 1)
        try publishElsewhere("two")
        #expect(!registry.isCurrent(key), "the counter moved")
        #expect(registry.currentVersion(key) == 1, "memory is not changed behind the reader's back")
        #expect(registry.reload(key))
        #expect(registry.isCurrent(key) && registry.currentVersion(key) == 2)
    }

    /// Another node's commit that this node's listener has not relayed yet: the worker that reads
    /// it first moves the counter before it tells its streams or answers, so every other worker
    /// reads the store before it answers (a client told of it by a stream never fetches older).
    @Test func aReloadThatFindsANewerVersionMovesTheCounterBeforeAnyoneIsTold() throws {
        let other = TemplateRegistry(store: store.templates, projects: projects, counters: counters, logger: logger)
        try publishElsewhere("one")
        #expect(registry.reload(key) && other.reload(key))
        // Committed, not counted: no one on this node announced it.
        _ = try store.templates.publish(project: "demo", namespace: .client,
                              templateJSON: Array("{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"two\"}}}}".utf8),
                              expectedVersion: nil, metadata: PublishMetadata())
        #expect(registry.reload(key) && registry.currentVersion(key) == 2)
        #expect(!other.isCurrent(key), "the other worker must read the store before it answers")
        #expect(registry.isCurrent(key), "the reader itself need not read again")
        #expect(other.reload(key) && other.currentVersion(key) == 2)
        #expect(registry.reload(key) && registry.currentVersion(key) == 2)
        #expect(other.isCurrent(key) && registry.isCurrent(key), "finding what it had moves nothing")
    }

    @Test func theWorkersOwnPublishStillReloadsOnceSoAConcurrentOneIsNotHidden() throws {
        #expect(registry.reload(key))
        let own = try publishElsewhere("own")
        let concurrent = try publishElsewhere("concurrent")
        #expect(registry.install(own)?.versionNumber == 1)
        #expect(!registry.isCurrent(key))
        #expect(registry.reload(key))
        #expect(registry.currentVersion(key) == concurrent.versionNumber)
    }

    @Test func aCollisionOnACounterCostsAReloadAndKeepsTheVersion() throws {
        try publishElsewhere("one")
        #expect(registry.reload(key))
        // Another template on the same counter.
        let other = (0...).lazy.map { TemplateKey(project: "p\($0)", namespace: .client) }
            .first { ChangeCounters.slot(of: $0) == ChangeCounters.slot(of: self.key) && $0 != self.key }!
        counters.bump(other)
        #expect(!registry.isCurrent(key))
        #expect(registry.reload(key))
        #expect(registry.isCurrent(key) && registry.currentVersion(key) == 1)
    }

    @Test func aStoreThatCannotBeReadKeepsTheLastVersionServed() throws {
        try publishElsewhere("one")
        #expect(registry.reload(key))
        counters.bump(key)
        store.close()
        #expect(!registry.reload(key))
        #expect(registry.currentVersion(key) == 1)
        #expect(!registry.isCurrent(key))
    }

    @Test func changedKeysListsOnlyLoadedTemplatesWhoseCounterMoved() throws {
        #expect(registry.reload(key))
        #expect(registry.changedKeys.isEmpty)
        try publishElsewhere("one")
        #expect(registry.changedKeys == [key])
    }
}
