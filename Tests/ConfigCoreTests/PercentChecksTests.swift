import ConfigCore
import Foundation
import Testing

/// A template's single percent rules are evaluated from packed data rather than through their
/// condition trees: the outcomes must be those of each condition evaluated on its own, for
/// every kind of rule, seeded or not, whoever the client is.
@Suite struct PercentChecksTests {
    private static let expressions = [
        "percent('exp-a') <= 50",
        "percent('exp-a') > 50",
        "percent('exp.b_2') between 10 and 35.5",
        "percent <= 30",
        "percent > 0.000001",
        "percent between 0 and 100",
        "percent('z') <= 0",
        "device.country in ['US']",
        "device.os == 'android' && percent('inner') <= 40",
        "!(percent('neg') <= 20)",
        "app.firebaseInstallationId in ['fid-3']",
        "percent('exp-a') between 25 and 75",
    ]

    private let compiled: CompiledTemplate

    init() throws {
        compiled = try CompiledTemplate(RemoteConfigTemplate(
            conditions: Self.expressions.enumerated().map { RemoteConfigCondition(name: "c\($0.offset)", expression: $0.element) },
            parameters: ["p": RemoteConfigParameter(defaultValue: .value("d"))]
        ))
    }

    /// Clients with and without ids (an app instance id, only a randomization id, an empty
    /// one, non-ASCII), under a project seed and none.
    private static let contexts: [EvaluationContext] = {
        var result: [EvaluationContext] = []
        let ids: [(String?, String?)] = (0..<400).map { ("fid-\($0)", nil) } + [
            (nil, nil), ("", nil), (nil, "visitor-9"), ("", "visitor-9"), ("fid-ø-😊", nil),
            (String(repeating: "long-", count: 40), nil),
        ]
        for defaultSeed in ["", "project-seed"] {
            for (index, (instance, randomization)) in ids.enumerated() {
                result.append(EvaluationContext(
                    platform: index % 2 == 0 ? "android" : "ios", countryCode: index % 3 == 0 ? "US" : "DE",
                    appInstanceId: instance, randomizationId: randomization, defaultPercentSeed: defaultSeed))
            }
        }
        return result
    }()

    @Test func theOutcomesAreThoseOfEachConditionOnItsOwn() throws {
        let parsed = try Self.expressions.map { try ConditionExpression.parse($0) }
        var held = 0
        for context in Self.contexts {
            let outcomes = compiled.conditionOutcomes(for: context)
            for (index, expression) in parsed.enumerated() {
                #expect(outcomes[index] == expression.evaluate(in: context), "\(Self.expressions[index]) for \(context)")
                if outcomes[index] { held += 1 }
            }
        }
        // The clients fall on both sides of the rules: the comparison above is not of falses only.
        #expect(held > Self.contexts.count * 3)
    }
}
