import ConfigCore
import Foundation
import Testing

/// Promoting chosen parameters and conditions of one template into another, as values.
@Suite struct TemplatePromotionTests {
    static func template(_ json: String) throws -> RemoteConfigTemplate {
        try RemoteConfigTemplate.decode(json: Data(json.utf8))
    }

    static let staging = """
        {"conditions":[{"name":"ios","expression":"device.os == 'ios'"},{"name":"beta","expression":"app.customSignal['beta'] == 'yes'"},
                       {"name":"pro","expression":"app.customSignal['plan'] == 'pro'"}],
         "parameters":{"banner":{"defaultValue":{"value":"new"},"conditionalValues":{"beta":{"value":"beta banner"}}},
                       "limit":{"defaultValue":{"value":"20"},"valueType":"NUMBER"}},
         "parameterGroups":{"checkout":{"description":"Checkout flow","parameters":{"pay_v2":{"defaultValue":{"value":"true"},"valueType":"BOOLEAN"}}}}}
        """

    static let production = """
        {"conditions":[{"name":"ios","expression":"device.os == 'ios'"},{"name":"pro","expression":"app.customSignal['plan'] == 'pro'"}],
         "parameters":{"banner":{"defaultValue":{"value":"old"}},"limit":{"defaultValue":{"value":"10"},"valueType":"NUMBER"},
                       "legacy":{"defaultValue":{"value":"x"}}}}
        """

    @Test func aParameterComesWithTheConditionsItsValuesNameInTheSourcesOrder() throws {
        let source = try Self.template(Self.staging), target = try Self.template(Self.production)
        let promoted = try TemplatePromotion.promote(parameters: ["banner"], conditions: [], of: source, into: target)
        #expect(promoted.parameters["banner"] == source.parameters["banner"])
        #expect(promoted.parameters["limit"] == target.parameters["limit"], "what was not chosen stays")
        #expect(promoted.conditions.map(\.name) == ["ios", "beta", "pro"], "beta goes where staging's order puts it, before pro")
    }

    @Test func aGroupedParameterBringsItsGroupAndAnAbsentOneIsRemoved() throws {
        let source = try Self.template(Self.staging), target = try Self.template(Self.production)
        let promoted = try TemplatePromotion.promote(parameters: ["pay_v2", "legacy"], conditions: [], of: source, into: target)
        #expect(promoted.parameterGroups["checkout"] == source.parameterGroups["checkout"])
        #expect(promoted.parameters["legacy"] == nil, "staging has no 'legacy': promoting it removes it")
        #expect(promoted.conditions == target.conditions)
    }

    @Test func aChosenConditionReplacesItsNamesakeWhereItStands() throws {
        var source = try Self.template(Self.staging)
        source.conditions[2].expression = "app.customSignal['plan'] in ['pro', 'team']"
        let target = try Self.template(Self.production)
        let promoted = try TemplatePromotion.promote(parameters: [], conditions: ["pro"], of: source, into: target)
        #expect(promoted.conditions.map(\.name) == ["ios", "pro"])
        #expect(promoted.conditions[1] == source.conditions[2])
        #expect(promoted.parameters == target.parameters)
    }

    @Test func unknownPartsAreRefusedByName() throws {
        let source = try Self.template(Self.staging), target = try Self.template(Self.production)
        #expect(throws: TemplatePromotion.Problem(description: "neither environment's template has the parameter 'ghost'")) {
            try TemplatePromotion.promote(parameters: ["ghost"], conditions: [], of: source, into: target)
        }
        #expect(throws: TemplatePromotion.Problem(description: "the source template has no condition 'android'")) {
            try TemplatePromotion.promote(parameters: [], conditions: ["android"], of: source, into: target)
        }
    }
}
