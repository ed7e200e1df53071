import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing
import TestSupport

/// Usage counts: what several workers and nodes add is summed exactly, kept in hourly buckets
/// that windows read and pruning removes, never announced.
extension StoreContract {
    @Suite struct Usage {
        let fresh = FreshData()
        static let key = TemplateKey(project: "p1", namespace: .client)
        /// The start of an hour.
        static let start = Date(timeIntervalSince1970: Double(1_800_000_000 / 3_600 * 3_600))

        static func use(_ key: String, _ source: String, _ value: String?) -> ParameterUse {
            ParameterUse(key: key, source: source, valueDigest: value.map(UsageSource.digest(of:)) ?? UsageSource.inAppDefaultDigest)
        }

        static func head(_ version: Int64, _ keys: [String], at time: Date) -> ServedHead {
            ServedHead(version: version, publishTime: time, keys: keys)
        }

        /// One worker's batch for p1/firebase: `fetches` answers of version 1 (keys a and b), by
        /// app version, and what each served.
        static func batch(at time: Date, head: ServedHead? = nil, fetches: [(appVersion: String, uses: [ParameterUse])],
                          single: (flag: String, use: ParameterUse)? = nil) -> UsageBatch {
            var usage = TemplateUsage(key: key, head: head)
            for fetch in fetches {
                for use in fetch.uses { usage.uses[use, default: 0] += 1 }
                usage.clients[ClientCount(version: 1, dimension: .appVersion, value: fetch.appVersion), default: 0] += 1
                usage.clients[ClientCount(version: 1, dimension: .platform, value: "android"), default: 0] += 1
                usage.versionKeys[1] = ["a", "b"]
                for use in fetch.uses { usage.lastEvaluations[use.key] = time }
            }
            if let single {
                usage.uses[single.use, default: 0] += 1
                usage.clients[ClientCount(version: 1, parameter: single.flag, dimension: .appVersion, value: "9.9"), default: 0] += 1
                usage.lastEvaluations[single.flag] = time
            }
            return UsageBatch(hour: time, time: time, templates: [usage])
        }

        @Test(arguments: StoreEngine.allCases) func countsFromSeveralWorkersAndNodesAddUpExactly(engine: StoreEngine) throws {
            let clock = ManualClock(Self.start.addingTimeInterval(600))
            let fixture = try fresh.fixture(engine)
            let node1 = try fixture.make(clock: clock), node2 = try fixture.open(retention: 300, clock: clock)
            let time = clock.now
            let served = [Self.use("a", UsageSource.defaultValue, "x"), Self.use("b", UsageSource.condition("ios"), "y")]
            let other = [Self.use("a", UsageSource.rollout("r1"), "z"), Self.use("b", UsageSource.inAppDefault, nil)]
            try node1.usage.record(Self.batch(at: time, head: Self.head(1, ["a", "b"], at: time), fetches: [("1.0", served), ("1.0", served)]))
            try node2.usage.record(Self.batch(at: time, fetches: [("2.0", other), ("1.0", served)], single: ("a", Self.use("a", "default", "x"))))
            onThreads(4) { worker in
                try? (worker % 2 == 0 ? node1 : node2).usage.record(Self.batch(at: time, fetches: [("3.\(worker)", served)]))
            }
            let report = try node2.usage.report(Self.key, parameters: ["a", "b"], publishTime: time, now: clock.now, topValues: 3)
            let a = try #require(report.parameters.first { $0.key == "a" }?.windows[.hour])
            let b = try #require(report.parameters.first { $0.key == "b" }?.windows[.hour])
            #expect(a.evaluations == 9 && b.evaluations == 8, "8 fetches of both keys, and one single evaluation of a")
            #expect(a.bySource == ["default": 8, "rollout:r1": 1])
            #expect(b.bySource == ["condition:ios": 7, "inAppDefault": 1])
            #expect(a.byAppVersion == ["1.0": 3, "2.0": 1, "3.0": 1, "(other)": 4], "the three largest named, ties by name, the rest summed")
            #expect(b.byAppVersion == ["1.0": 3, "2.0": 1, "3.0": 1, "(other)": 3], "a single evaluation of a counts for a alone")
            #expect(a.byPlatform == ["android": 8] && b.byPlatform == ["android": 8], "the single evaluation sent no platform")
            for window in UsageWindow.allCases { #expect(report.parameters[0].windows[window] == report.parameters[0].windows[.hour]) }
            #expect(report.parameters.map(\.facts.lastEvaluateTime) == [time, time])
            #expect(report.unevaluated.isEmpty && report.countedSince == time)
        }

        @Test(arguments: StoreEngine.allCases) func windowsRollWithTheClockAndPruningKeepsThirtyDays(engine: StoreEngine) throws {
            let clock = ManualClock(Self.start)
            let usage = try fresh.fixture(engine).make(clock: clock).usage
            let served = [Self.use("a", UsageSource.defaultValue, "x")]
            try usage.record(Self.batch(at: clock.now, head: Self.head(1, ["a"], at: clock.now), fetches: [("1.0", served)]))
            try usage.record(Self.batch(at: clock.now.addingTimeInterval(3_599), fetches: [("1.0", served)]))
            func evaluations(at offset: TimeInterval) throws -> [UsageWindow: Int64] {
                let report = try usage.report(Self.key, parameters: ["a"], publishTime: Self.start, now: Self.start.addingTimeInterval(offset),
                                              topValues: 10)
                return report.parameters[0].windows.mapValues(\.evaluations)
            }
            #expect(try evaluations(at: 1_800) == [.hour: 2, .day: 2, .week: 2, .month: 2])
            #expect(try evaluations(at: 2 * 3_600 - 1) == [.hour: 2, .day: 2, .week: 2, .month: 2], "the previous hour's bucket is read")
            #expect(try evaluations(at: 2 * 3_600) == [.hour: 0, .day: 2, .week: 2, .month: 2])
            #expect(try evaluations(at: 25 * 3_600) == [.hour: 0, .day: 0, .week: 2, .month: 2])
            #expect(try evaluations(at: 8 * 86_400 + 3_600) == [.hour: 0, .day: 0, .week: 0, .month: 2])
            #expect(try evaluations(at: 31 * 86_400 + 3_600) == [.hour: 0, .day: 0, .week: 0, .month: 0])
            #expect(try usage.prune(now: Self.start.addingTimeInterval(30 * 86_400)) == 0, "thirty days are kept")
            #expect(try usage.prune(now: Self.start.addingTimeInterval(30 * 86_400 + 3_600)) == 4, "a source, two clients, the key list")
            let report = try usage.report(Self.key, parameters: ["a"], publishTime: Self.start, now: Self.start, topValues: 10)
            #expect(report.parameters[0].windows[.month]?.evaluations == 0)
            #expect(report.parameters[0].facts.lastEvaluateTime == Self.start.addingTimeInterval(3_599), "the last evaluation outlives its bucket")
        }

        @Test(arguments: StoreEngine.allCases) func theDailySeriesSumsEachDayEndingWithTheCurrentHour(engine: StoreEngine) throws {
            let now = Self.start.addingTimeInterval(40 * 86_400 + 1_800)
            let usage = try fresh.fixture(engine).make(clock: ManualClock(now)).usage
            let served = [Self.use("a", UsageSource.defaultValue, "x"), Self.use("a", UsageSource.condition("ios"), "y")]
            // Hours before the current one, and how many fetches each.
            let fetchesHoursAgo: [(hours: Double, fetches: Int)] = [(0, 2), (23, 1), (24, 4), (29 * 24 + 23, 3), (30 * 24, 5)]
            for (hours, fetches) in fetchesHoursAgo {
                let time = UsageWindow.bucket(of: now).addingTimeInterval(-hours * 3_600)
                try usage.record(Self.batch(at: time, fetches: Array(repeating: ("1.0", served), count: fetches)))
            }
            let report = try usage.report(Self.key, parameters: ["a", "b"], publishTime: Self.start, now: now, topValues: 10)
            var expected = [Int64](repeating: 0, count: 30)
            expected[29] = 2 * 3
            expected[28] = 2 * 4
            expected[0] = 2 * 3
            #expect(report.parameters[0].daily == expected, "the current hour and the 23 before it are the last day; 30 days back is out")
            #expect(report.parameters[1].daily == [Int64](repeating: 0, count: 30), "a key never evaluated has a day of zero each")
            let day = try #require(report.parameters[0].windows[.day])
            #expect(day.evaluations == 2 * 7, "the day window also holds the hour 24 hours back")
        }

        @Test(arguments: StoreEngine.allCases) func aProjectWithLongerStaleDaysKeepsItsBucketsLonger(engine: StoreEngine) throws {
            let clock = ManualClock(Self.start)
            let database = try fresh.fixture(engine).make(clock: clock)
            try database.projects.upsert(StoredProject(id: "p2", number: "1002", displayName: "Project Two"))
            try database.usage.setStaleDays(project: "p1", days: 60)
            for project in ["p1", "p2"] {
                var batch = Self.batch(at: Self.start, fetches: [("1.0", [Self.use("a", "default", "x")])])
                batch.templates[0].key.project = project
                try database.usage.record(batch)
            }
            #expect(try database.usage.prune(now: Self.start.addingTimeInterval(40 * 86_400)) == 4, "p2's buckets and key list go, p1's stay")
            let kept = try database.usage.report(Self.key, parameters: ["a"], publishTime: Self.start,
                                                 now: Self.start.addingTimeInterval(40 * 86_400), topValues: 10)
            #expect(kept.parameters[0].facts.distinctValues == 1, "sixty days of values are read for p1")
        }

        @Test(arguments: StoreEngine.allCases) func headsSayWhichKeysATemplateHasAndSinceWhen(engine: StoreEngine) throws {
            let clock = ManualClock(Self.start)
            let usage = try fresh.fixture(engine).make(clock: clock).usage
            let published = Self.start.addingTimeInterval(-100 * 86_400)
            try usage.record(UsageBatch(hour: clock.now, time: clock.now, templates: [
                TemplateUsage(key: Self.key, head: Self.head(3, ["a", "b"], at: published))]))
            var report = try usage.report(Self.key, parameters: ["a", "b"], publishTime: published, now: clock.now, topValues: 10)
            #expect(report.unevaluated == ["a", "b"] && report.stale.isEmpty, "counted since now, whenever they were published")
            #expect(report.parameters[0].facts == ParameterFacts(publishTime: published, countedSince: Self.start, lastEvaluateTime: nil,
                                                                 distinctValues: 0, permanent: false))
            clock.advance(by: 60)
            try usage.record(Self.batch(at: clock.now, fetches: [("1.0", [Self.use("a", "default", "x")])]))
            // c is evaluated (a canary's key, say) before any head with it is recorded.
            try usage.record(UsageBatch(hour: clock.now, time: clock.now, templates: [
                TemplateUsage(key: Self.key, uses: [Self.use("c", "default", "1"): 1], lastEvaluations: ["c": clock.now])]))
            let publishedAgain = clock.now.addingTimeInterval(10)
            clock.advance(by: 60)
            try usage.record(UsageBatch(hour: clock.now, time: clock.now, templates: [
                TemplateUsage(key: Self.key, head: Self.head(4, ["a", "c", "d"], at: publishedAgain))]))
            try usage.record(UsageBatch(hour: clock.now, time: clock.now, templates: [
                TemplateUsage(key: Self.key, head: Self.head(3, ["a", "b"], at: published))]))
            report = try usage.report(Self.key, parameters: ["a", "c", "d", "b"], publishTime: clock.now, now: clock.now, topValues: 10)
            #expect(report.parameters.map(\.facts.publishTime) == [published, publishedAgain, publishedAgain, clock.now],
                    "b was removed in 4 and an older head changes nothing; c takes 4's time")
            #expect(report.unevaluated == ["c", "d", "b"], "c was evaluated before it was published")
        }

        @Test(arguments: StoreEngine.allCases) func staleParametersAreReportedOnceWithAWebhookEvent(engine: StoreEngine) throws {
            let clock = ManualClock(Self.start)
            let database = try fresh.fixture(engine).make(clock: clock)
            try database.webhooks.createWebhook(StoredWebhook(
                id: "wh_1", project: "p1", url: "https://hooks.example.com/", description: "", events: [WebhookEventType.parameterStale.rawValue],
                secret: "whsec_1", createTime: clock.now, updateTime: clock.now))
            try database.usage.record(UsageBatch(hour: clock.now, time: clock.now, templates: [
                TemplateUsage(key: Self.key, head: Self.head(1, ["a", "b"], at: clock.now))]))
            let a = StaleParameter(key: "a", reason: .notEvaluated, lastEvaluateTime: nil, staleDays: 30)
            let b = StaleParameter(key: "b", reason: .oneValue, lastEvaluateTime: clock.now, staleDays: 30)
            let ghost = StaleParameter(key: "ghost", reason: .notEvaluated, lastEvaluateTime: nil, staleDays: 30)
            #expect(try database.usage.reportStale(Self.key, stale: [b, a, ghost], now: clock.now) == ["a", "b"], "a key never recorded is not")
            #expect(try database.usage.reportStale(Self.key, stale: [a, b], now: clock.now).isEmpty, "once")
            #expect(try database.usage.reportStale(Self.key, stale: [b], now: clock.now).isEmpty, "a is no longer stale")
            #expect(try database.usage.reportStale(Self.key, stale: [a, b], now: clock.now) == ["a"], "until it is again")
            let claimed = try database.webhooks.claimDeliveries(owner: "t", limit: 10, leaseDuration: 60)
            #expect(claimed.count == 3 && claimed.allSatisfy { $0.event.type == "parameter.stale" })
            let data = try #require(claimed.first { $0.event.data.map { String(decoding: $0, as: UTF8.self) }?.contains("\"b\"") == true }?.event.data)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(data)) as? [String: [String: Any]])
            #expect(object["parameter"]?["reason"] as? String == "ONE_VALUE" && object["parameter"]?["staleDays"] as? Int == 30)
        }

        @Test(arguments: StoreEngine.allCases) func staleDaysAndPermanentMarksArePerProject(engine: StoreEngine) throws {
            let clock = ManualClock(Self.start)
            let usage = try fresh.fixture(engine).make(clock: clock).usage
            #expect(try usage.staleDays(project: "p1") == 30)
            #expect(throws: StoreError.self) { try usage.setStaleDays(project: "p1", days: 0) }
            #expect(throws: StoreError.projectNotFound("ghost")) { try usage.setStaleDays(project: "ghost", days: 7) }
            try usage.setStaleDays(project: "p1", days: 7)
            #expect(try usage.staleDays(project: "p1") == 7 && usage.staleDays(project: "p2") == 30)
            #expect(try usage.setPermanent(Self.key, parameters: ["kill", "kill", "beta"], permanent: true, actor: "ada", now: clock.now)
                == ["beta", "kill"])
            #expect(try usage.setPermanent(Self.key, parameters: ["kill"], permanent: true, actor: "bob", now: clock.now).isEmpty)
            try usage.setPermanent(TemplateKey(project: "p1", namespace: .server), parameters: ["kill"], permanent: true, actor: "bob", now: clock.now)
            #expect(try usage.permanentParameters(project: "p1").map { "\($0.namespace.rawValue)/\($0.key) \($0.markedBy)" }
                == ["firebase/beta ada", "firebase/kill ada", "firebase-server/kill bob"])
            #expect(try usage.setPermanent(Self.key, parameters: ["beta", "none"], permanent: false, actor: "ada", now: clock.now) == ["beta"])
            let report = try usage.report(Self.key, parameters: ["kill", "beta"], publishTime: clock.now, now: clock.now, topValues: 10)
            #expect(report.parameters.map(\.facts.permanent) == [true, false] && report.rule.days == 7)
        }

        @Test(arguments: StoreEngine.allCases) func usageWritesAreNeverAnnounced(engine: StoreEngine) throws {
            let clock = ManualClock(Self.start)
            let database = try fresh.fixture(engine).make(clock: clock)
            let token = try database.changeToken()
            try database.usage.record(Self.batch(at: clock.now, head: Self.head(1, ["a"], at: clock.now),
                                                 fetches: [("1.0", [Self.use("a", "default", "x")])]))
            try database.usage.setStaleDays(project: "p1", days: 3)
            try database.usage.setPermanent(Self.key, parameters: ["a"], permanent: true, actor: "ada", now: clock.now)
            try database.usage.reportStale(Self.key, stale: [StaleParameter(key: "a", reason: .oneValue, lastEvaluateTime: nil, staleDays: 3)],
                                           now: clock.now)
            try database.usage.prune(now: clock.now)
            #expect(try database.changeToken() == token)
        }
    }
}
