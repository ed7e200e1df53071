import ConfigCore
import Foundation
import Testing

@Suite struct TemplateDiffTests {
    private let base = RemoteConfigTemplate(
        conditions: [
            RemoteConfigCondition(name: "ios", expression: "device.os == 'ios'", tagColor: "INDIGO"),
            RemoteConfigCondition(name: "beta", expression: "percent <= 10"),
            RemoteConfigCondition(name: "us", expression: "device.country in ['US']"),
        ],
        parameters: [
            "title": RemoteConfigParameter(defaultValue: .value("Hi"), conditionalValues: ["ios": .value("Yo"), "beta": .value("Hey")]),
            "limit": RemoteConfigParameter(defaultValue: .value("5"), description: "max", valueType: .number),
            "gone": RemoteConfigParameter(defaultValue: .value("x")),
        ],
        parameterGroups: [
            "onboarding": ParameterGroup(description: "First run", parameters: ["steps": RemoteConfigParameter(defaultValue: .value("3"), valueType: .number)]),
            "old": ParameterGroup(),
        ],
        version: TemplateVersion(versionNumber: 1)
    )

    @Test func identicalTemplatesHaveNoChanges() throws {
        var other = base
        other.version = TemplateVersion(versionNumber: 2, description: "versions are not compared")
        let diff = TemplateDiff(from: base, to: other)
        #expect(diff.isEmpty)
        #expect(TemplateFixtures.json(diff) == #"{"added":{"conditions":[],"groups":[],"parameters":[]},"addedConditions":[],"addedGroups":[],"addedParameters":[],"changedConditions":[],"changedGroups":[],"changedParameters":[],"removed":{"conditions":[],"groups":[],"parameters":[]},"removedConditions":[],"removedGroups":[],"removedParameters":[]}"#)
        let export = try TemplateFixtures.clientExport()
        #expect(TemplateDiff(from: export, to: export).isEmpty)
    }

    @Test func addedAndRemovedParametersAnywhere() {
        var new = base
        new.parameters["gone"] = nil
        new.parameters["fresh"] = RemoteConfigParameter(defaultValue: .value("1"))
        new.parameterGroups["onboarding"]?.parameters["skip"] = RemoteConfigParameter()
        let diff = TemplateDiff(from: base, to: new)
        #expect(diff.addedParameters == ["fresh", "skip"])
        #expect(diff.removedParameters == ["gone"])
        #expect(diff.changedParameters.isEmpty)
        #expect(!diff.isEmpty)
    }

    @Test func addedAndRemovedThingsCarryWhatTheyHold() {
        var new = base
        new.parameters["gone"] = nil
        new.parameterGroups["onboarding"]?.parameters["skip"] = RemoteConfigParameter(
            defaultValue: .value("false"), conditionalValues: ["beta": .value("true")], description: "skip the tour", valueType: .boolean)
        new.conditions.removeAll { $0.name == "us" }
        new.conditions.append(RemoteConfigCondition(name: "android", expression: "device.os == 'android'", tagColor: "GREEN"))
        new.parameterGroups["old"] = nil
        new.parameterGroups["pricing"] = ParameterGroup(description: "Prices")
        let diff = TemplateDiff(from: base, to: new)
        #expect(TemplateFixtures.json(diff.added) == #"{"conditions":[{"expression":"device.os == 'android'","name":"android","tagColor":"GREEN"}],"#
            + #""groups":[{"description":"Prices","name":"pricing"}],"#
            + #""parameters":[{"conditionalValues":{"beta":{"value":"true"}},"defaultValue":{"value":"false"},"description":"skip the tour","group":"onboarding","key":"skip","valueType":"BOOLEAN"}]}"#)
        #expect(TemplateFixtures.json(diff.removed) == #"{"conditions":[{"expression":"device.country in ['US']","name":"us"}],"#
            + #""groups":[{"name":"old"}],"parameters":[{"defaultValue":{"value":"x"},"key":"gone","valueType":"STRING"}]}"#)
    }

    @Test func changedParameterSaysWhatChanged() throws {
        var new = base
        new.parameters["title"]?.defaultValue = .useInAppDefault
        new.parameters["title"]?.conditionalValues = ["ios": .value("Yo!"), "us": .value("Howdy")]
        new.parameters["limit"]?.valueType = .string
        new.parameters["limit"]?.description = nil
        let diff = TemplateDiff(from: base, to: new)
        #expect(diff.changedParameters.map(\.key) == ["limit", "title"])
        let limit = diff.changedParameters[0]
        #expect(limit.valueType == ValueChange(from: .number, to: .string))
        #expect(limit.description == ValueChange(from: "max", to: nil))
        #expect(limit.defaultValue == nil && limit.conditionalValues == nil && limit.group == nil)
        let title = diff.changedParameters[1]
        #expect(title.defaultValue == ValueChange(from: .value("Hi"), to: .useInAppDefault))
        let conditional = try #require(title.conditionalValues)
        #expect(conditional.added == ["us"])
        #expect(conditional.removed == ["beta"])
        #expect(conditional.changed == ["ios"])
        #expect(TemplateFixtures.json(limit) == #"{"description":{"from":"max","to":null},"key":"limit","valueType":{"from":"NUMBER","to":"STRING"}}"#)
        #expect(TemplateFixtures.json(title) == #"{"conditionalValues":{"added":["us"],"changed":["ios"],"removed":["beta"],"values":{"beta":{"from":{"value":"Hey"},"to":null},"ios":{"from":{"value":"Yo"},"to":{"value":"Yo!"}},"us":{"from":null,"to":{"value":"Howdy"}}}},"defaultValue":{"from":{"value":"Hi"},"to":{"useInAppDefault":true}},"key":"title"}"#)
    }

    @Test func movingBetweenGroupsIsAGroupChange() {
        var new = base
        let steps = new.parameterGroups["onboarding"]!.parameters.removeValue(forKey: "steps")!
        new.parameters["steps"] = steps
        let title = new.parameters.removeValue(forKey: "title")!
        new.parameterGroups["old"]?.parameters["title"] = title
        let diff = TemplateDiff(from: base, to: new)
        #expect(diff.addedParameters.isEmpty && diff.removedParameters.isEmpty)
        #expect(diff.changedParameters.map(\.key) == ["steps", "title"])
        #expect(diff.changedParameters[0].group == ValueChange(from: "onboarding", to: nil))
        #expect(diff.changedParameters[1].group == ValueChange(from: nil, to: "old"))
    }

    @Test func conditionChanges() {
        var new = base
        new.conditions = [
            RemoteConfigCondition(name: "android", expression: "device.os == 'android'"),
            RemoteConfigCondition(name: "us", expression: "device.country in ['US', 'CA']"),
            RemoteConfigCondition(name: "ios", expression: "device.os == 'ios'", tagColor: "PINK"),
        ]
        new.parameters["title"]?.conditionalValues["beta"] = nil
        let diff = TemplateDiff(from: base, to: new)
        #expect(diff.addedConditions == ["android"])
        #expect(diff.removedConditions == ["beta"])
        #expect(diff.changedConditions.map(\.name) == ["us", "ios"])
        #expect(diff.changedConditions[0].expression == ValueChange(from: "device.country in ['US']", to: "device.country in ['US', 'CA']"))
        #expect(diff.changedConditions[0].tagColor == nil)
        #expect(diff.changedConditions[1].tagColor == ValueChange(from: "INDIGO", to: "PINK"))
        #expect(diff.conditionOrder == ValueChange(from: ["ios", "us"], to: ["us", "ios"]))
    }

    @Test func addingAConditionIsNotAReorder() {
        var new = base
        new.conditions.insert(RemoteConfigCondition(name: "first", expression: "true"), at: 0)
        let diff = TemplateDiff(from: base, to: new)
        #expect(diff.addedConditions == ["first"])
        #expect(diff.conditionOrder == nil)
    }

    @Test func structuredConditionChanges() {
        let old = RemoteConfigTemplate(conditions: [RemoteConfigCondition(name: "s", condition: .object(["true": .object([:])]))])
        let new = RemoteConfigTemplate(conditions: [RemoteConfigCondition(name: "s", condition: .object(["false": .object([:])]))])
        let diff = TemplateDiff(from: old, to: new)
        #expect(diff.changedConditions.first?.condition == ValueChange(from: .object(["true": .object([:])]), to: .object(["false": .object([:])])))
    }

    @Test func groupChanges() {
        var new = base
        new.parameterGroups["old"] = nil
        new.parameterGroups["onboarding"]?.description = "First-run screens"
        new.parameterGroups["pricing"] = ParameterGroup(description: "Prices")
        let diff = TemplateDiff(from: base, to: new)
        #expect(diff.addedGroups == ["pricing"])
        #expect(diff.removedGroups == ["old"])
        #expect(diff.changedGroups.map(\.name) == ["onboarding"])
        #expect(diff.changedGroups.first?.description == ValueChange(from: "First run", to: "First-run screens"))
    }

    @Test func diffDecodesFromItsJSON() throws {
        var new = base
        new.parameters["title"]?.defaultValue = nil
        new.conditions.reverse()
        new.parameterGroups["onboarding"]?.description = nil
        new.parameters["gone"] = nil
        new.parameterGroups["onboarding"]?.parameters["skip"] = RemoteConfigParameter(defaultValue: .value("1"), conditionalValues: ["ios": .value("2")])
        new.parameters["title"]?.conditionalValues["us"] = .value("Howdy")
        let diff = TemplateDiff(from: base, to: new)
        let decoded = try JSONDecoder().decode(TemplateDiff.self, from: TemplateJSON.encode(diff))
        #expect(decoded == diff)
    }
}
