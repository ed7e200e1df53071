import ConfigCore
import ConfigStore
import Foundation
import Logging
@testable import ServerCore
import Synchronization
import TestSupport
import Testing

/// Counting on the fetch path and a worker's writes of its counts (docs/insights.md): no count is
/// lost when a cache starts over or a write fails, and none is written twice.
@Suite final class UsageCountingTests {
    @Test func aCountingCacheKeepsTheCountsOfWhatItDrops() {
        let cache = CountingCache<Int, String>(capacity: 2)
        for key in [1, 1, 2, 1] { _ = cache.value(for: key) { "v\(key)" } }
        _ = cache.value(for: 2, counting: false) { "v2" }
        #expect(cache.takeCounts() == [1: 3, 2: 1])
        #expect(cache.takeCounts().isEmpty, "taken counts start over")
        _ = cache.value(for: 1) { "v1" }
        _ = cache.value(for: 3) { "v3" }  // full: starts over with 3 alone, keeping 1's count
        cache.count(3)
        cache.count(2)  // a value handed out again after it was dropped
        #expect(cache.value(for: 1) { "v1" }.hit == false)
        #expect(cache.takeCounts() == [1: 2, 2: 1, 3: 2])
    }

    @Test func aClientTallyNamesItsLimitAndSumsTheRest() {
        var tally = ClientTally(limit: 2)
        for value in ["1.0", "2.0", "1.0", "3.0", "", "2.0"] { tally.add(value) }
        #expect(Dictionary(uniqueKeysWithValues: tally.counts.map { ($0.value, $0.count) }) == ["1.0": 2, "2.0": 2])
        #expect(tally.other == 2, "3.0 and the client that sent none came after two others")
    }

    /// A usage store whose writes fail while `failing` is set.
    final class FlakyUsage: UsageStore {
        let store: any UsageStore
        let failing = Atomic(false)

        init(_ store: any UsageStore) { self.store = store }

        func record(_ batch: UsageBatch) throws(StoreError) {
            if failing.load(ordering: .relaxed) { throw StoreError.unavailable("down") }
            try store.record(batch)
        }

        func report(_ key: TemplateKey, parameters: [String], publishTime: Date, now: Date, topValues: Int) throws(StoreError) -> UsageReport {
            try store.report(key, parameters: parameters, publishTime: publishTime, now: now, topValues: topValues)
        }

        func staleDays(project: String) throws(StoreError) -> Int { try store.staleDays(project: project) }
        func setStaleDays(project: String, days: Int) throws(StoreError) { try store.setStaleDays(project: project, days: days) }
        func permanentParameters(project: String) throws(StoreError) -> [PermanentParameter] { try store.permanentParameters(project: project) }
        func setPermanent(_ key: TemplateKey, parameters: [String], permanent: Bool, actor: String, now: Date) throws(StoreError) -> [String] {
            try store.setPermanent(key, parameters: parameters, permanent: permanent, actor: actor, now: now)
        }
        func reportStale(_ key: TemplateKey, stale: [StaleParameter], now: Date) throws(StoreError) -> [String] {
            try store.reportStale(key, stale: stale, now: now)
        }
        func prune(now: Date) throws(StoreError) -> Int { try store.prune(now: now) }
    }

    @Test func aWriteThatFailedIsMadeWithTheNextOneAndOnlyOnce() throws {
        let directory = try TemporaryDirectory("rcs-usage-ledger")
        let store = try SQLiteConfigDatabase(databasePath: directory.url.appendingPathComponent("db.sqlite").path,
                                             migrationsDirectory: try #require(Migrator.defaultMigrationsDirectory(engine: "sqlite")))
        defer { store.close() }
        let project = StoredProject(id: "demo", number: "424242", displayName: "Demo", percentSeed: "")
        try store.projects.upsert(project)
        let projects = ProjectDirectory()
        projects.add(project)
        let key = TemplateKey(project: "demo", namespace: .client)
        _ = try store.templates.publish(project: "demo", namespace: .client, templateJSON: Array(Self.template.utf8), expectedVersion: nil,
                                        metadata: PublishMetadata())
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let usage = FlakyUsage(store.usage)
        let ledger = UsageLedger(store: usage, start: start, logger: logger)
        let registry = TemplateRegistry(store: store.templates, projects: projects, counters: .local(), usage: ledger, logger: logger)
        #expect(registry.reload(key))
        let active = try #require(registry.active(key))
        let metrics = ServerMetrics(worker: 0)
        func fetch(country: String, at time: Date) {
            let context = EvaluationContext(appVersion: "1.0", platform: "ios", countryCode: country, now: time)
            _ = active.fetchAnswer(for: active.conditionOutcomes(for: context), client: context, metrics: metrics)
        }
        for index in 0..<5 { fetch(country: index < 3 ? "US" : "FR", at: start.addingTimeInterval(1)) }
        usage.failing.store(true, ordering: .relaxed)
        #expect(!ledger.flush(now: start.addingTimeInterval(10), served: registry.servedTemplates))
        fetch(country: "US", at: start.addingTimeInterval(11))
        usage.failing.store(false, ordering: .relaxed)
        #expect(ledger.flush(now: start.addingTimeInterval(20), served: registry.servedTemplates))
        #expect(ledger.flush(now: start.addingTimeInterval(30), served: registry.servedTemplates), "nothing left to write twice")
        let report = try store.usage.report(key, parameters: ["banner"], publishTime: start, now: start.addingTimeInterval(30), topValues: 10)
        let counts = try #require(report.parameters.first?.windows[.hour])
        #expect(counts == UsageCounts(evaluations: 6, bySource: ["condition:us": 4, "default": 2], byAppVersion: ["1.0": 6],
                                      byPlatform: ["ios": 6]))
        #expect(report.parameters.first?.facts.lastEvaluateTime == start.addingTimeInterval(11))
        #expect(report.countedSince == start)
    }

    static let template = """
        {"conditions": [{"name": "us", "expression": "device.country in ['US']"}],
         "parameters": {"banner": {"defaultValue": {"value": "plain"}, "conditionalValues": {"us": {"value": "stars"}}}}}
        """
}
