import ConfigCore
import Foundation
import Testing

/// What usage counts for each parameter of one answer, the windows' buckets, and the rules of
/// staleness, as values.
@Suite struct UsageRulesTests {
    private let compiled: CompiledTemplate

    init() throws {
        compiled = try CompiledTemplate(RemoteConfigTemplate.decode(json: Data("""
            {"conditions": [{"name": "beta", "expression": "true"}, {"name": "ios", "expression": "true"}],
             "parameters": {
               "ranking": {"defaultValue": {"value": "false"}, "conditionalValues": {
                 "beta": {"rolloutValue": {"rolloutId": "r1", "value": "true", "percent": 30}}, "ios": {"value": "ios"}}},
               "color": {"defaultValue": {"value": "gray"}, "conditionalValues": {
                 "beta": {"experimentValue": {"experimentId": "e1", "exposurePercent": 100, "variantValue": [
                   {"variantId": "A", "value": "red"}, {"variantId": "B", "noChange": true}]}}}},
               "legacy": {"defaultValue": {"useInAppDefault": true}},
               "empty": {"conditionalValues": {"ios": {"value": "only-ios"}}}
             }}
            """.utf8)))
    }

    private func instance(where predicate: (String) -> Bool) throws -> String {
        let found = (0..<10_000).map { "fid-\($0)" }.first(where: predicate)
        return try #require(found)
    }

    private func uses(_ conditions: [Bool], _ instance: String) -> [String: String] {
        let uses = compiled.uses(for: compiled.outcomes(conditions: conditions, appInstanceId: instance))
        #expect(uses.map(\.key) == compiled.parameterKeys, "one use per key, sorted")
        return Dictionary(uniqueKeysWithValues: uses.map { ($0.key, $0.source) })
    }

    @Test func eachKeyIsCountedUnderThePartThatServedIt() throws {
        let inRollout = { (id: String) in
            InstanceAssignment.isIncluded(id: "r1", microPercent: InstanceAssignment.microPercent(30), appInstanceId: id)
        }
        let variantA = { (id: String) in InstanceAssignment.variantIndex(experimentId: "e1", variantCount: 2, appInstanceId: id) == 0 }
        let a = try instance { inRollout($0) && variantA($0) }
        #expect(uses([true, true], a) == ["color": "experiment:e1/A", "empty": "condition:ios", "legacy": "inAppDefault",
                                          "ranking": "rollout:r1"])
        let b = try instance { !inRollout($0) && !variantA($0) }
        #expect(uses([true, true], b) == ["color": "default", "empty": "condition:ios", "legacy": "inAppDefault", "ranking": "condition:ios"],
                "a noChange variant and a rollout the instance is not in pass on")
        #expect(uses([false, false], b) == ["color": "default", "empty": "inAppDefault", "legacy": "inAppDefault", "ranking": "default"])
    }

    @Test func aUseCarriesADigestOfTheValueServed() throws {
        let outcomes = compiled.outcomes(conditions: [false, true], appInstanceId: "fid-1")
        let ranking = try #require(compiled.use(of: "ranking", for: outcomes))
        #expect(ranking == ParameterUse(key: "ranking", source: "condition:ios", valueDigest: UsageSource.digest(of: "ios")))
        #expect(compiled.use(of: "legacy", for: outcomes)?.valueDigest == UsageSource.inAppDefaultDigest)
        #expect(compiled.use(of: "absent", for: outcomes) == nil)
        #expect(compiled.uses(for: outcomes).first { $0.key == "ranking" } == ranking, "one flag's use is the bulk's")
        #expect(UsageSource.digest(of: "ios") != UsageSource.digest(of: "ios ") && UsageSource.digest(of: "") != UsageSource.inAppDefaultDigest)
    }

    @Test func windowsCoverTheirSpanInWholeHoursAndTheCurrentOne() {
        let now = Date(timeIntervalSince1970: 1_800_001_200)  // twenty minutes past an hour
        let bucket = UsageWindow.bucket(of: now)
        #expect(bucket == Date(timeIntervalSince1970: 1_800_000_000) && UsageWindow.nextBucket(after: now) == bucket.addingTimeInterval(3_600))
        #expect(UsageWindow.hour.start(at: now) == bucket.addingTimeInterval(-3_600))
        #expect(UsageWindow.month.start(at: now) == bucket.addingTimeInterval(-30 * 86_400))
        #expect(UsageWindow.retentionDays(staleDays: 7) == 30 && UsageWindow.retentionDays(staleDays: 90) == 90)
    }

    private static let day: TimeInterval = 86_400
    private static let published = Date(timeIntervalSince1970: 1_700_000_000)

    private func facts(last: TimeInterval?, values: Int = 2, permanent: Bool = false, countedSince: TimeInterval = 0) -> ParameterFacts {
        ParameterFacts(publishTime: Self.published, countedSince: Self.published.addingTimeInterval(countedSince),
                       lastEvaluateTime: last.map { Self.published.addingTimeInterval($0) }, distinctValues: values, permanent: permanent)
    }

    private func at(_ days: Double) -> Date { Self.published.addingTimeInterval(days * Self.day) }

    @Test func aParameterNotEvaluatedForTheStaleDaysIsStale() {
        let rule = StalenessRule()
        #expect(rule.staleReason(facts(last: nil), at: at(29.9)) == nil, "too young to judge")
        #expect(rule.staleReason(facts(last: nil), at: at(30)) == .notEvaluated)
        #expect(rule.staleReason(facts(last: 5 * Self.day), at: at(34.9)) == nil)
        #expect(rule.staleReason(facts(last: 5 * Self.day), at: at(35)) == .notEvaluated)
        #expect(StalenessRule(days: 7).staleReason(facts(last: 5 * Self.day), at: at(12)) == .notEvaluated, "the project's days")
        #expect(rule.staleReason(facts(last: nil, countedSince: 20 * Self.day), at: at(30)) == nil,
                "watched from when counting began, not from an older publish")
    }

    @Test func aParameterServingOneValueToEveryClientForTheStaleDaysIsStale() {
        let rule = StalenessRule()
        #expect(rule.staleReason(facts(last: 31 * Self.day, values: 1), at: at(31)) == .oneValue)
        #expect(rule.staleReason(facts(last: 31 * Self.day, values: 2), at: at(31)) == nil)
        #expect(rule.staleReason(facts(last: 29 * Self.day, values: 1), at: at(29.5)) == nil, "not watched for the days yet")
    }

    @Test func aPermanentParameterIsNeverStale() {
        let rule = StalenessRule()
        #expect(rule.staleReason(facts(last: nil, permanent: true), at: at(400)) == nil)
        #expect(rule.staleReason(facts(last: 31 * Self.day, values: 1, permanent: true), at: at(31)) == nil)
    }

    @Test func unevaluatedMeansNoEvaluationSinceThePublish() {
        let rule = StalenessRule()
        #expect(rule.isUnevaluated(facts(last: nil)))
        #expect(rule.isUnevaluated(facts(last: -1)), "an evaluation of a key removed and published again does not count")
        #expect(!rule.isUnevaluated(facts(last: 0)))
        #expect(rule.isUnevaluated(facts(last: nil, permanent: true)), "permanent or not")
    }
}
