import ConfigCore
import Foundation
import Testing

/// Rollout, experiment and personalization values in evaluation: who gets what, what falls
/// through, and the metadata a fetch answer carries.
@Suite struct TemplateAssignmentTests {
    private let compiled: CompiledTemplate

    init() throws {
        compiled = try CompiledTemplate(RemoteConfigTemplate.decode(json: Data("""
            {"conditions": [{"name": "beta", "expression": "true"}, {"name": "everyone", "expression": "true"}],
             "parameters": {
               "ranking": {"defaultValue": {"value": "false"}, "conditionalValues": {
                 "beta": {"rolloutValue": {"rolloutId": "r1", "value": "true", "percent": 30}},
                 "everyone": {"value": "everyone"}}},
               "color": {"defaultValue": {"value": "gray"}, "conditionalValues": {
                 "beta": {"experimentValue": {"experimentId": "e1", "exposurePercent": 50, "variantValue": [
                   {"variantId": "A", "value": "red"}, {"variantId": "B", "noChange": true}]}}}},
               "shade": {"defaultValue": {"experimentValue": {"experimentId": "e1", "exposurePercent": 50, "variantValue": [
                   {"variantId": "B", "value": "light"}, {"variantId": "A", "value": "dark"}]}}},
               "feed": {"defaultValue": {"value": "plain"}, "conditionalValues": {
                 "beta": {"personalizationValue": {"personalizationId": "p1"}},
                 "everyone": {"value": "everyone-feed"}}},
               "banner": {"defaultValue": {"rolloutValue": {"rolloutId": "r2", "value": "on", "percent": 10}}}
             }}
            """.utf8)))
    }

    private func instance(where predicate: (String) -> Bool) throws -> String {
        let found = (0..<10_000).map { "fid-\($0)" }.first(where: predicate)
        return try #require(found)
    }

    private func inRollout(_ id: String, _ percent: Double, _ instance: String) -> Bool {
        InstanceAssignment.isIncluded(id: id, microPercent: InstanceAssignment.microPercent(percent), appInstanceId: instance)
    }

    private func variant(_ instance: String) -> String? {
        guard inRollout("e1", 50, instance) else { return nil }
        return ["A", "B"][InstanceAssignment.variantIndex(experimentId: "e1", variantCount: 2, appInstanceId: instance)]
    }

    private func served(_ conditions: [Bool], _ instance: String) -> (entries: [String: String], config: ServedConfig) {
        let config = compiled.served(for: compiled.outcomes(conditions: conditions, appInstanceId: instance))
        return (Dictionary(uniqueKeysWithValues: config.entries.map { ($0.key, $0.value) }), config)
    }

    @Test func aRolloutServesItsInstancesAndReportsThem() throws {
        let id = try instance { inRollout("r1", 30, $0) && !inRollout("r2", 10, $0) }
        let (entries, config) = served([true, true], id)
        #expect(entries["ranking"] == "true")
        #expect(config.rollouts == [RolloutMembership(rolloutId: "r1", variantId: "enabled", affectedParameterKeys: ["ranking"])])
        let explanation = try #require(compiled.explain(for: compiled.outcomes(conditions: [true, true], appInstanceId: id))
            .parameters.first { $0.key == "ranking" })
        #expect(explanation.source == .conditionalValue && explanation.condition == "beta" && explanation.value == "true")
        #expect(explanation.rollout == .init(rolloutId: "r1", variantId: "enabled"))
    }

    @Test func othersFallThroughToTheNextTrueConditionThenTheDefault() throws {
        let id = try instance { !inRollout("r1", 30, $0) }
        #expect(served([true, true], id).entries["ranking"] == "everyone")
        #expect(served([true, false], id).entries["ranking"] == "false")
        #expect(served([true, true], id).config.rollouts.allSatisfy { $0.rolloutId != "r1" })
        let explanation = try #require(compiled.explain(for: compiled.outcomes(conditions: [true, true], appInstanceId: id))
            .parameters.first { $0.key == "ranking" })
        #expect(explanation.condition == "everyone" && explanation.rollout == nil)
        #expect(explanation.passedOver == [.init(rolloutId: "r1", condition: "beta")])
    }

    @Test func aRolloutAsDefaultValueServesOnlyItsInstances() throws {
        let inside = try instance { inRollout("r2", 10, $0) }
        let outside = try instance { !inRollout("r2", 10, $0) }
        #expect(served([false, false], inside).entries["banner"] == "on")
        #expect(served([false, false], inside).config.rollouts.map(\.rolloutId) == ["r2"])
        #expect(served([false, false], outside).entries["banner"] == nil)
    }

    /// Conditions that do not reach a rollout leave it unassigned: instances in and out of it
    /// share their outcomes (and so a cached answer); once the condition is true they do not.
    @Test func assignmentsArePartOfTheOutcomesOnlyWhereReachable() throws {
        let inside = try instance { inRollout("r1", 30, $0) && variant($0) == nil && !inRollout("r2", 10, $0) }
        let outside = try instance { !inRollout("r1", 30, $0) && variant($0) == nil && !inRollout("r2", 10, $0) }
        #expect(compiled.outcomes(conditions: [false, true], appInstanceId: inside)
                == compiled.outcomes(conditions: [false, true], appInstanceId: outside))
        #expect(compiled.outcomes(conditions: [true, true], appInstanceId: inside)
                != compiled.outcomes(conditions: [true, true], appInstanceId: outside))
    }

    @Test func experimentVariantsServeTheirValues() throws {
        let a = try instance { variant($0) == "A" }
        let (entries, config) = served([true, false], a)
        #expect(entries["color"] == "red" && entries["shade"] == "dark")
        #expect(config.experiments == [ExperimentMembership(experimentId: "e1", variantId: "A", affectedParameterKeys: ["color", "shade"])])
    }

    /// `noChange` keeps what the instance would get without the experiment, yet the key is the
    /// experiment's; instances not exposed get no experiment at all.
    @Test func noChangeFallsThroughAndUnexposedInstancesAreNotInTheExperiment() throws {
        let b = try instance { variant($0) == "B" }
        let (entries, config) = served([true, false], b)
        #expect(entries["color"] == "gray" && entries["shade"] == "light")
        #expect(config.experiments == [ExperimentMembership(experimentId: "e1", variantId: "B", affectedParameterKeys: ["color", "shade"])])
        let explanation = try #require(compiled.explain(for: compiled.outcomes(conditions: [true, false], appInstanceId: b))
            .parameters.first { $0.key == "color" })
        #expect(explanation.source == .defaultValue && explanation.experiment == .init(experimentId: "e1", variantId: "B"))

        let unexposed = try instance { variant($0) == nil }
        let plain = served([true, false], unexposed)
        #expect(plain.entries["color"] == "gray" && plain.entries["shade"] == nil)
        #expect(plain.config.experiments.isEmpty)
    }

    @Test func variantsDoNotDependOnTheOrderAParameterListsThem() throws {
        // color lists A then B, shade B then A: one instance has one variant in both.
        for index in 0..<200 {
            let id = "fid-\(index)"
            guard let variant = variant(id) else { continue }
            let shade = served([false, false], id).entries["shade"]
            #expect(shade == (variant == "A" ? "dark" : "light"), "\(id)")
        }
    }

    @Test func personalizationServesTheDefaultValue() throws {
        let (entries, _) = served([true, true], "fid-1")
        #expect(entries["feed"] == "plain", "the personalization sends the walk past 'everyone' to the default")
        #expect(served([false, true], "fid-1").entries["feed"] == "everyone-feed")
        let explanation = try #require(compiled.explain(for: compiled.outcomes(conditions: [true, true], appInstanceId: "fid-1"))
            .parameters.first { $0.key == "feed" })
        #expect(explanation.source == .defaultValue && explanation.personalizationId == "p1" && explanation.value == "plain")
    }

    @Test func withoutAnInstanceIdNobodyIsAssigned() {
        let config = compiled.served(for: compiled.outcomes(conditions: [true, true]))
        #expect(config.rollouts.isEmpty && config.experiments.isEmpty)
        #expect(Dictionary(uniqueKeysWithValues: config.entries.map { ($0.key, $0.value) })["ranking"] == "everyone")
    }

    @Test func realConditionOutcomesCarryTheAssignments() throws {
        let id = try instance { inRollout("r1", 30, $0) }
        let outcomes = compiled.conditionOutcomes(for: EvaluationContext(appInstanceId: id))
        #expect(outcomes == compiled.outcomes(conditions: [true, true], appInstanceId: id))
        #expect(compiled.served(for: outcomes).entries.first { $0.key == "ranking" }?.value == "true")
    }
}
