import ConfigCore
import Foundation
import Testing

/// The split of a template's conditions into stable ones (reading only inputs many clients
/// share, so servers reuse their outcomes) and volatile ones (percent rules, installation ids,
/// time), which are evaluated for every client.
@Suite struct StableConditionsTests {
    private static let expressions: [(name: String, expression: String, isVolatile: Bool)] = [
        ("always", "true", false),
        ("new_app", "app.version.>=(['2.3.0'])", false),
        ("build", "app.build.>(['100'])", false),
        ("android_us", "device.os == 'android' && device.country in ['US', 'CA']", false),
        ("german", "device.language in ['de']", false),
        ("app_id", "app.id == '1:1:ios:a'", false),
        ("gold", "app.userProperty['tier'].exactlyMatches(['gold'])", false),
        ("beta_signal", "app.customSignal['channel'] == 'beta'", false),
        ("rollout", "percent('exp') <= 50", true),
        ("rollout_android", "device.os == 'android' && percent <= 30", true),
        ("tester", "app.firebaseInstallationId in ['fid-3']", true),
        ("after_launch", "dateTime >= dateTime('2026-01-01T00:00:00')", true),
        ("not_ios", "!(device.os == 'ios')", false),
    ]

    private let compiled: CompiledTemplate

    init() throws {
        compiled = try CompiledTemplate(RemoteConfigTemplate(
            conditions: Self.expressions.map { RemoteConfigCondition(name: $0.name, expression: $0.expression) },
            parameters: ["p": RemoteConfigParameter(defaultValue: .value("d"))]
        ))
    }

    /// Clients over every combination of a few values per input (nil = not sent).
    private static let contexts: [EvaluationContext] = {
        var result: [EvaluationContext] = []
        for version in [nil, "2.2.9", "2.3.0"] {
            for (platform, appId) in [(nil, nil), ("android", nil), (nil, "1:1:ios:a"), ("ios", "1:1:android:b")] as [(String?, String?)] {
                for country in [nil, "", "us", "DE"] {
                    for (index, language) in [nil, "de-AT", "en"].enumerated() {
                        result.append(EvaluationContext(
                            appId: appId, appVersion: version, appBuild: index == 1 ? "101" : "99", platform: platform,
                            countryCode: country, languageCode: language, appInstanceId: "fid-\(result.count % 7)",
                            customSignals: index == 2 ? ["channel": "beta"] : [:],
                            userProperties: index == 0 ? ["tier": "gold"] : [:],
                            now: Date(timeIntervalSince1970: result.count % 2 == 0 ? 1_700_000_000 : 1_800_000_000)
                        ))
                    }
                }
            }
        }
        return result
    }()

    /// Each condition evaluated on its own, the way a template without the split would.
    private func reference(_ context: EvaluationContext) throws -> ConditionOutcomes {
        ConditionOutcomes(try Self.expressions.map { try ConditionExpression.parse($0.expression).evaluate(in: context) })
    }

    @Test func volatileConditionsAreLeftOutOfTheStableOutcomes() throws {
        #expect(compiled.hasStableConditions)
        for context in Self.contexts {
            let stable = compiled.stableOutcomes(for: context)
            let full = try reference(context)
            for (index, entry) in Self.expressions.enumerated() {
                #expect(stable[index] == (entry.isVolatile ? false : full[index]), "\(entry.name)")
            }
        }
    }

    @Test func stableThenVolatileEqualsEvaluatingEveryCondition() throws {
        var distinctOutcomes = Set<ConditionOutcomes>()
        for context in Self.contexts {
            let outcomes = compiled.conditionOutcomes(for: context, stable: compiled.stableOutcomes(for: context))
            #expect(outcomes == (try reference(context)))
            #expect(compiled.conditionOutcomes(for: context) == outcomes)
            distinctOutcomes.insert(outcomes)
        }
        // The grid exercises the conditions, not one corner of them.
        #expect(distinctOutcomes.count > 20)
    }

    @Test func clientsWithEqualStableInputsShareStableOutcomes() {
        var outcomesByInputs: [StableInputs: ConditionOutcomes] = [:]
        for context in Self.contexts {
            let stable = compiled.stableOutcomes(for: context)
            let inputs = compiled.stableInputs(of: context)
            if let seen = outcomesByInputs[inputs] { #expect(seen == stable) }
            outcomesByInputs[inputs] = stable
        }
        // Installation id and time are not stable inputs: clients differing only there share.
        var other = Self.contexts[5]
        other.appInstanceId = "someone-else"
        other.now = Date(timeIntervalSince1970: 0)
        #expect(compiled.stableInputs(of: other) == compiled.stableInputs(of: Self.contexts[5]))
        // Every stable input is part of the key, including map entries the conditions name.
        var signal = Self.contexts[5]
        signal.customSignals["channel"] = "stable"
        var property = Self.contexts[5]
        property.userProperties["tier"] = "silver"
        var unrelated = Self.contexts[5]
        unrelated.customSignals["unrelated"] = "x"
        #expect(compiled.stableInputs(of: signal) != compiled.stableInputs(of: Self.contexts[5]))
        #expect(compiled.stableInputs(of: property) != compiled.stableInputs(of: Self.contexts[5]))
        #expect(compiled.stableInputs(of: unrelated) == compiled.stableInputs(of: Self.contexts[5]))
    }

    @Test func onlyShortInputsMakeACacheKey() {
        // A client's long strings are never kept as a cache key (they are evaluated in full).
        var long = Self.contexts[5]
        long.appVersion = String(repeating: "9", count: StableInputs.maxCachedBytes + 1)
        #expect(!compiled.stableInputs(of: long).isCacheable)
        long.appVersion = "2.3.0"
        long.customSignals["channel"] = String(repeating: "x", count: StableInputs.maxCachedBytes)
        #expect(!compiled.stableInputs(of: long).isCacheable)
        #expect(Self.contexts.allSatisfy { compiled.stableInputs(of: $0).isCacheable })
    }

    @Test func aTemplateOfOnlyVolatileConditionsHasNoStableOnes() throws {
        let template = RemoteConfigTemplate(conditions: [RemoteConfigCondition(name: "r", expression: "percent <= 10")])
        let compiled = try CompiledTemplate(template)
        #expect(!compiled.hasStableConditions)
        let context = EvaluationContext(appInstanceId: "fid")
        #expect(compiled.conditionOutcomes(for: context) == ConditionOutcomes([try ConditionExpression.parse("percent <= 10").evaluate(in: context)]))
    }

    @Test func serverTemplatesSplitTheirStructuredConditionsToo() throws {
        let template = RemoteConfigTemplate(conditions: [
            RemoteConfigCondition(name: "signal", condition: .object(["customSignal": .object([
                "customSignalOperator": .string("STRING_CONTAINS"), "customSignalKey": .string("plan"),
                "targetCustomSignalValues": .array([.string("pro")]),
            ])])),
            RemoteConfigCondition(name: "percent", condition: .object(["percent": .object([
                "percentOperator": .string("LESS_OR_EQUAL"), "microPercent": .number(50_000_000), "seed": .string("s"),
            ])])),
        ])
        let compiled = try CompiledTemplate(template, namespace: .server)
        let pro = EvaluationContext(appInstanceId: "a", customSignals: ["plan": "pro-yearly"])
        let free = EvaluationContext(appInstanceId: "a", customSignals: ["plan": "free"])
        #expect(compiled.stableInputs(of: pro) != compiled.stableInputs(of: free))
        #expect(compiled.stableOutcomes(for: pro)[0] && !compiled.stableOutcomes(for: pro)[1])
        #expect(!compiled.stableOutcomes(for: free)[0])
    }
}
