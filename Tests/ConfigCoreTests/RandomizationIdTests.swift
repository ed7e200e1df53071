import Foundation
import TestSupport
import Testing
@testable import ConfigCore

/// Which id percent conditions hash: server templates read `randomizationId` first, as the
/// Admin SDKs do, client templates the app instance id; without an id every percent condition
/// is false (protocol notes §5.3, step 1).
@Suite struct RandomizationIdTests {
    /// The Admin SDK vectors through a structured server condition, the id sent under each
    /// name; when both are sent, `randomizationId` decides.
    @Test(arguments: PercentVectors.lowerHalf.filter { PercentRule.isValidSeed($0.seed) })
    func serverConditionsHashTheRandomizationId(_ vector: PercentVectors.Vector) throws {
        let condition = try ServerCondition(json: ConditionsPercentTests.lowerHalf(seed: vector.seed))
        let id = vector.randomizationId
        #expect(condition.evaluate(in: EvaluationContext(randomizationId: id)) == vector.inLowerHalf)
        #expect(condition.evaluate(in: EvaluationContext(appInstanceId: id)) == vector.inLowerHalf)
        let other = try #require(Self.id(landing: !vector.inLowerHalf, seed: vector.seed))
        #expect(condition.evaluate(in: EvaluationContext(appInstanceId: other, randomizationId: id)) == vector.inLowerHalf)
        #expect(condition.evaluate(in: EvaluationContext(appInstanceId: id, randomizationId: other)) != vector.inLowerHalf)
    }

    /// A context with no id, or an empty one, has every percent condition false, whatever its
    /// bounds; a sent empty `randomizationId` is no id even beside an app instance id, as in
    /// the Admin SDKs, which read only that name. Other conditions still apply.
    @Test func withoutAnIdEveryPercentConditionIsFalse() throws {
        let everyone = [
            #"{"percent":{"percentOperator":"LESS_OR_EQUAL","microPercent":100000000}}"#,
            #"{"percent":{"percentOperator":"GREATER_THAN","microPercent":0}}"#,
            #"{"percent":{"percentOperator":"BETWEEN","seed":"s","microPercentRange":{"microPercentUpperBound":100000000}}}"#,
        ]
        let anonymous = [
            EvaluationContext(), EvaluationContext(appInstanceId: ""), EvaluationContext(randomizationId: ""),
            EvaluationContext(appInstanceId: "someone", randomizationId: ""),
        ]
        for text in everyone {
            let condition = try ServerCondition(json: JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)))
            #expect(condition.evaluate(in: EvaluationContext(randomizationId: "someone")), "\(text)")
            for context in anonymous {
                #expect(!condition.evaluate(in: context), "\(text) for \(context)")
            }
        }
        let signal = try ServerCondition(json: JSONDecoder().decode(JSONValue.self, from: Data(
            #"{"customSignal":{"customSignalOperator":"STRING_EXACTLY_MATCHES","customSignalKey":"tier","targetCustomSignalValues":["beta"]}}"#.utf8)))
        #expect(signal.evaluate(in: EvaluationContext(customSignals: ["tier": "beta"])))
    }

    /// A server template compiled from expressions evaluates the same way as a whole.
    @Test func aServerTemplateEvaluatesAnonymousContexts() throws {
        let template = try RemoteConfigTemplate.decode(json: Data("""
            {"conditions": [{"name": "all", "expression": "percent <= 100"},
                            {"name": "beta", "expression": "app.customSignal['tier'] == 'beta'"}],
             "parameters": {"rollout": {"defaultValue": {"value": "off"}, "conditionalValues": {"all": {"value": "on"}}},
                            "model": {"defaultValue": {"value": "stable"}, "conditionalValues": {"beta": {"value": "next"}}}}}
            """.utf8))
        let compiled = try CompiledTemplate(template, namespace: .server)
        func entries(_ context: EvaluationContext) -> [String: String] {
            Dictionary(uniqueKeysWithValues: compiled.entries(for: compiled.conditionOutcomes(for: context)).map { ($0.key, $0.value) })
        }
        #expect(entries(EvaluationContext(customSignals: ["tier": "beta"])) == ["rollout": "off", "model": "next"])
        #expect(entries(EvaluationContext(randomizationId: "r")) == ["rollout": "on", "model": "stable"])
    }

    /// Client templates hash the app instance id, and the randomization id only when no
    /// instance id was sent (the admin dry run may be given either).
    @Test func clientTemplatesPreferTheAppInstanceId() throws {
        // Seed "3": "three" is at 6 701 947; "one" is elsewhere.
        let rule = try ConditionExpression.parse("percent('3') between 6.701946 and 6.701947")
        #expect(rule.evaluate(in: EvaluationContext(appInstanceId: "three", randomizationId: "one")))
        #expect(!rule.evaluate(in: EvaluationContext(appInstanceId: "one", randomizationId: "three")))
        #expect(rule.evaluate(in: EvaluationContext(randomizationId: "three")))
        let installation = try ConditionExpression.parse("app.firebaseInstallationId in ['three']")
        #expect(installation.evaluate(in: EvaluationContext(randomizationId: "three")))
        #expect(!installation.evaluate(in: EvaluationContext(appInstanceId: "one", randomizationId: "three")))
    }

    /// The first of `other-0`, `other-1`, … whose bucket under `seed` is in the lower half
    /// (or not): an id whose outcome differs from a vector's.
    static func id(landing inLowerHalf: Bool, seed: String) -> String? {
        (0..<64).lazy.map { "other-\($0)" }.first {
            PercentRule(.between, lowerBound: 0, upperBound: 50_000_000).matches(seed: seed, randomizationId: $0) == inLowerHalf
        }
    }
}
