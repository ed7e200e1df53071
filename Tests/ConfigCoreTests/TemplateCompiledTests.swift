import ConfigCore
import Foundation
import Testing

@Suite struct TemplateCompiledTests {
    /// Conditions of the exported template, in order.
    private enum Condition: Int, CaseIterable {
        case ios, beta, northAmerica, app21, gold
    }

    /// The exported template.
    private let compiled: CompiledTemplate

    init() throws {
        compiled = try CompiledTemplate(TemplateFixtures.clientExport())
    }

    /// Outcomes of a client without an instance id: in no rollout.
    private func outcomes(_ trueConditions: Condition...) -> ConditionOutcomes {
        compiled.outcomes(conditions: Condition.allCases.map { trueConditions.contains($0) })
    }

    private func entries(_ compiled: CompiledTemplate, _ outcomes: ConditionOutcomes) -> [String: String] {
        Dictionary(uniqueKeysWithValues: compiled.entries(for: outcomes).map { ($0.key, $0.value) })
    }

    private let defaults: [String: String] = [
        "checkout_v2_enabled": "false",
        "feature_flags": #"{"darkMode":false,"fonts":["Inter","Roboto"],"path":"/v2/home"}"#,
        "max_cart_items": "50",
        "new_search_ranking": "false",
        "onboarding_steps": "3",
        "price_tiers": #"[{"name":"basic","usd":0},{"name":"pro","usd":4.99}]"#,
        "show_annual_discount": "true",
        "welcome_title": "Hi there",
    ]

    @Test func noTrueConditionServesDefaults() throws {
        #expect(compiled.conditionNames == ["ios_users", "beta_10pct", "north_america", "app_2_1_plus", "gold_tier"])
        let result = compiled.entries(for: outcomes())
        // Sorted by key; useInAppDefault and personalization defaults leave keys out.
        #expect(result.map(\.key) == defaults.keys.sorted())
        #expect(entries(compiled, outcomes()) == defaults)
    }

    @Test func firstTrueConditionWithAValueWins() throws {
        var expected = defaults
        expected["checkout_v2_enabled"] = "true"
        expected["feature_flags"] = #"{"darkMode":true,"fonts":["Inter"],"path":"/v2/home"}"#
        expected["onboarding_steps"] = "-1"
        #expect(entries(compiled, outcomes(.beta)) == expected)

        // ios_users comes first: its useInAppDefault beats beta's "true"; its title beats Howdy.
        let iosBetaNA = entries(compiled, outcomes(.ios, .beta, .northAmerica))
        #expect(iosBetaNA["checkout_v2_enabled"] == nil)
        #expect(iosBetaNA["welcome_title"] == "Welcome, iPhone friend")
        #expect(iosBetaNA["promo_banner_text"] == "Free shipping on orders over $50 — ends Sunday! 🚚")
        #expect(entries(compiled, outcomes(.northAmerica))["welcome_title"] == "Howdy")

        // app_2_1_plus precedes gold_tier.
        #expect(entries(compiled, outcomes(.gold, .app21))["max_cart_items"] == "1.5e2")
        #expect(entries(compiled, outcomes(.gold))["max_cart_items"] == "250")
    }

    @Test func useInAppDefaultLeavesKeysOut() throws {
        let gold = entries(compiled, outcomes(.gold))
        #expect(gold["show_annual_discount"] == nil)
        #expect(gold["price_tiers"] != nil)
        // A client in no rollout falls through to the default value.
        #expect(entries(compiled, outcomes(.app21))["new_search_ranking"] == "false")
        // A personalization default value has nothing to serve.
        #expect(entries(compiled, outcomes())["recommended_category"] == nil)
        #expect(entries(compiled, outcomes())["promo_banner_text"] == nil)
    }

    @Test func groupedParametersAreServedFlat() throws {
        let all = entries(compiled, outcomes(.ios))
        #expect(all["welcome_title"] == "Welcome, iPhone friend")
        #expect(all["onboarding_steps"] == "3")
        #expect(all["price_tiers"] != nil)
    }

    @Test func explainsEveryDecision() throws {
        let explanation = compiled.explain(for: outcomes(.ios, .app21))
        #expect(explanation.conditions.map(\.value) == [true, false, false, true, false])
        #expect(explanation.conditions.first == .init(name: "ios_users", value: true))
        let byKey = Dictionary(uniqueKeysWithValues: explanation.parameters.map { ($0.key, $0) })
        #expect(explanation.parameters.map(\.key) == byKey.keys.sorted())
        #expect(byKey["welcome_title"] == ParameterExplanation(
            key: "welcome_title", group: "onboarding", source: .conditionalValue, condition: "ios_users", effect: .value, value: "Welcome, iPhone friend"
        ))
        #expect(byKey["checkout_v2_enabled"] == ParameterExplanation(
            key: "checkout_v2_enabled", group: nil, source: .conditionalValue, condition: "ios_users", effect: .inAppDefault, value: nil
        ))
        var ranking = ParameterExplanation(
            key: "new_search_ranking", group: nil, source: .defaultValue, condition: nil, effect: .value, value: "false")
        ranking.passedOver = [.init(rolloutId: "rollout_3", condition: "app_2_1_plus")]
        #expect(byKey["new_search_ranking"] == ranking)
        #expect(byKey["promo_banner_text"] == ParameterExplanation(
            key: "promo_banner_text", group: nil, source: .defaultValue, condition: nil, effect: .inAppDefault, value: nil
        ))
        #expect(byKey["price_tiers"]?.source == .defaultValue)
        #expect(byKey["price_tiers"]?.group == "pricing")
        #expect(TemplateFixtures.json(byKey["max_cart_items"]) == #"{"condition":"app_2_1_plus","effect":"value","key":"max_cart_items","source":"conditionalValue","value":"1.5e2"}"#)
    }

    @Test func parameterWithoutAnyValue() throws {
        let template = RemoteConfigTemplate(
            conditions: [RemoteConfigCondition(name: "c", expression: "true")],
            parameters: ["bare": RemoteConfigParameter(conditionalValues: ["c": .value("x")])]
        )
        let compiled = try CompiledTemplate(template)
        #expect(compiled.entries(for: ConditionOutcomes([false])).isEmpty)
        #expect(compiled.entries(for: ConditionOutcomes([true])).map(\.value) == ["x"])
        let explanation = compiled.explain(for: ConditionOutcomes([false]))
        #expect(explanation.parameters == [ParameterExplanation(key: "bare", group: nil, source: .unset, condition: nil, effect: .noValue, value: nil)])
    }

    @Test func toleratesTemplatesThatSkippedValidation() throws {
        let template = RemoteConfigTemplate(
            conditions: [RemoteConfigCondition(name: "a", expression: "true"), RemoteConfigCondition(name: "a", expression: "false")],
            parameters: ["k": RemoteConfigParameter(defaultValue: .value("top"), conditionalValues: ["missing": .value("never"), "a": .value("first a")])],
            parameterGroups: ["g": ParameterGroup(parameters: ["k": RemoteConfigParameter(defaultValue: .value("grouped"))])]
        )
        let compiled = try CompiledTemplate(template)
        #expect(compiled.entries(for: ConditionOutcomes([false, false])).map(\.value) == ["top"])
        #expect(compiled.entries(for: ConditionOutcomes([false, true])).map(\.value) == ["top"])
        #expect(compiled.entries(for: ConditionOutcomes([true, false])).map(\.value) == ["first a"])
    }

    @Test func conditionsThatDoNotCompileThrow() {
        let template = RemoteConfigTemplate(conditions: [
            RemoteConfigCondition(name: "ok", expression: "true"),
            RemoteConfigCondition(name: "s", condition: .object(["true": .object([:])])),
        ])
        #expect(throws: TemplateValidationError(issues: [.init(
            path: "conditions[1].condition", message: "structured conditions are only for firebase-server templates; give an expression"
        )])) {
            try CompiledTemplate(template)
        }
    }

    @Test func evaluatesConditionsInOrder() throws {
        let outcomes = compiled.conditionOutcomes(for: EvaluationContext(platform: "android", countryCode: "DE"))
        #expect(outcomes.count == 6, "five conditions, then the bit of rollout_3")
        #expect(!outcomes[0])
        #expect(try CompiledTemplate(RemoteConfigTemplate()).conditionOutcomes(for: EvaluationContext()).count == 0)
    }

    @Test func evaluatesRealConditions() throws {
        let template = RemoteConfigTemplate(
            conditions: [RemoteConfigCondition(name: "no", expression: "false"), RemoteConfigCondition(name: "yes", expression: "true")],
            parameters: ["p": RemoteConfigParameter(defaultValue: .value("d"), conditionalValues: ["no": .value("n"), "yes": .value("y")])]
        )
        let compiled = try CompiledTemplate(template)
        let outcomes = compiled.conditionOutcomes(for: EvaluationContext())
        #expect(outcomes == ConditionOutcomes([false, true]))
        #expect(compiled.entries(for: outcomes).map(\.value) == ["y"])
    }

    @Test func serverValuesReportSources() throws {
        let compiled = try CompiledTemplate(TemplateFixtures.serverExport(), namespace: .server)
        #expect(compiled.conditionNames == ["canary", "everyone"])
        let defaults = ["temperature": "0.2", "local_only": "yes"]
        let canary = compiled.serverValues(for: ConditionOutcomes([true, true]), inAppDefaults: defaults)
        #expect(canary == [
            "model_name": ResolvedValue(value: "experimental-model", source: .remote),
            "temperature": ResolvedValue(value: "0.2", source: .default),
            "local_only": ResolvedValue(value: "yes", source: .default),
        ])
        let plain = compiled.serverValues(for: ConditionOutcomes([false, false]))
        #expect(plain == [
            "model_name": ResolvedValue(value: "stable-model", source: .remote),
            "temperature": ResolvedValue(value: "0.7", source: .remote),
        ])
        #expect(plain["temperature"]?.numberValue == 0.7)
        #expect(canary["local_only"]?.boolValue == true)
        #expect(ResolvedValue.static.boolValue == false && ResolvedValue.static.numberValue == 0)
        #expect(ResolvedValue(value: " 12 ", source: .remote).numberValue == 12)
        #expect(ResolvedValue(value: "On", source: .remote).boolValue)
        #expect(!ResolvedValue(value: "off", source: .remote).boolValue)
    }

    @Test func serverRemoteConfigIsStructuredAndFlat() throws {
        let export = try TemplateFixtures.serverExport()
        var template = export
        template.parameterGroups = ["g": ParameterGroup(description: "d", parameters: ["grouped": RemoteConfigParameter(defaultValue: .value("1"))])]
        let compiled = try CompiledTemplate(template, namespace: .server)
        let served = compiled.serverRemoteConfig
        #expect(served.conditions == export.conditions)
        #expect(served.parameters.keys.sorted() == ["grouped", "model_name", "temperature"])
        #expect(served.parameterGroups.isEmpty)
        #expect(served.version == export.version)
    }

    @Test func mismatchedOutcomesTrap() async {
        await #expect(processExitsWith: .failure) {
            let compiled = try CompiledTemplate(RemoteConfigTemplate(conditions: [RemoteConfigCondition(name: "c", expression: "true")]))
            _ = compiled.entries(for: ConditionOutcomes(count: 2))
        }
    }
}
