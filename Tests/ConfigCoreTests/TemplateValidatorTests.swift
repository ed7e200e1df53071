import ConfigCore
import Testing

@Suite struct TemplateValidatorTests {
    /// The issues of `template` as `path: message` strings.
    private func issues(
        _ template: RemoteConfigTemplate, namespace: TemplateNamespace = .client, limits: TemplateLimits = .firebase
    ) -> [String] {
        TemplateValidator(limits: limits).issues(in: template, namespace: namespace).map(\.description)
    }

    private func issues(_ json: String, namespace: TemplateNamespace = .client, limits: TemplateLimits = .firebase) throws -> [String] {
        issues(try TemplateFixtures.template(json), namespace: namespace, limits: limits)
    }

    private static func parameter(_ value: String, _ type: ParameterValueType) -> RemoteConfigTemplate {
        RemoteConfigTemplate(parameters: ["p": RemoteConfigParameter(defaultValue: .value(value), valueType: type)])
    }

    @Test func exportedTemplatesAreValid() throws {
        #expect(issues(try TemplateFixtures.clientExport()) == [])
        #expect(issues(try TemplateFixtures.serverExport(), namespace: .server) == [])
        try TemplateValidator().validate(try TemplateFixtures.clientExport())
    }

    @Test func unknownConditionReferences() throws {
        let found = try issues("""
        {"conditions":[{"name":"android","expression":"device.os == 'android'"}],
         "parameters":{"welcome":{"defaultValue":{"value":"hi"},"conditionalValues":{"ios":{"value":"yo"},"android":{"value":"hey"}}}},
         "parameterGroups":{"g":{"parameters":{"title":{"conditionalValues":{"web":{"useInAppDefault":true}}}}}}}
        """)
        #expect(found == [
            "parameterGroups.g.parameters.title.conditionalValues.web: unknown condition 'web'; conditional values must name a condition of the template",
            "parameters.welcome.conditionalValues.ios: unknown condition 'ios'; conditional values must name a condition of the template",
        ])
    }

    @Test func duplicateKeysAcrossParametersAndGroups() throws {
        let found = try issues("""
        {"parameters":{"k":{"defaultValue":{"value":"1"}}},
         "parameterGroups":{"b":{"parameters":{"k":{},"m":{}}},"a":{"parameters":{"k":{},"m":{}}}}}
        """)
        #expect(found == [
            "parameterGroups.a.parameters.k: parameter key 'k' is already defined at parameters.k",
            "parameterGroups.b.parameters.k: parameter key 'k' is already defined at parameters.k",
            "parameterGroups.b.parameters.m: parameter key 'm' is already defined at parameterGroups.a.parameters.m",
        ])
    }

    @Test func duplicateConditionNames() throws {
        let found = try issues("""
        {"conditions":[{"name":"a","expression":"true"},{"name":"b","expression":"true"},{"name":"a","expression":"false"}]}
        """)
        #expect(found == ["conditions[2].name: duplicate condition name 'a' (first at conditions[0])"])
    }

    @Test(arguments: ["true", "false"])
    func booleanAcceptsTrueAndFalse(value: String) {
        #expect(issues(Self.parameter(value, .boolean)) == [])
    }

    @Test(arguments: ["True", "FALSE", "yes", "1", "", " true"])
    func booleanRejectsOtherSpellings(value: String) {
        #expect(issues(Self.parameter(value, .boolean)) == ["parameters.p.defaultValue.value: '\(value)' is not a BOOLEAN value; use true or false"])
    }

    @Test func booleanCaseRuleIsConfigurable() {
        var limits = TemplateLimits()
        limits.booleanValuesAreCaseSensitive = false
        #expect(issues(Self.parameter("True", .boolean), limits: limits) == [])
        #expect(issues(Self.parameter("FALSE", .boolean), limits: limits) == [])
        #expect(issues(Self.parameter("yes", .boolean), limits: limits).count == 1)
    }

    @Test(arguments: ["0", "42", "-2.5", "+3", "1e3", "1.5E-2", ".5", "5.", "007"])
    func numberAcceptsDecimals(value: String) {
        #expect(issues(Self.parameter(value, .number)) == [])
    }

    @Test(arguments: ["", "abc", "nan", "NaN", "inf", "-infinity", "0x10", "1e", "1,5", " 1", "1 ", "1e999", ".", "-", "1.2.3"])
    func numberRejectsNonNumbers(value: String) {
        #expect(issues(Self.parameter(value, .number)) == ["parameters.p.defaultValue.value: '\(value)' is not a NUMBER value"])
    }

    @Test(arguments: [
        "{}", "[1, 2]", #"{"a":{"b":[true,null]}}"#, #""text""#, "3", "null", " -0.5e+10 ", #""\u00e9\n\/""#,
        #"{"emoji":"🚚","nested":[[[]]],"e":1E3}"#,
    ])
    func jsonAcceptsAnyJSONValue(value: String) {
        #expect(issues(Self.parameter(value, .json)) == [])
    }

    @Test(arguments: [
        ("", 0), ("{", 1), ("{'a':1}", 1), ("[1,]", 3), (#"{"a":1,}"#, 7), ("undefined", 0), (#"{"a":1}}"#, 7),
        ("[1 2]", 3), ("01", 1), (#""\x""#, 2), ("1.", 2), ("[NaN]", 1), ("\"a\tb\"", 2), ("{\"a\" 1}", 5),
    ])
    func jsonRejectsInvalidJSON(value: String, offset: Int) {
        #expect(issues(Self.parameter(value, .json)) == ["parameters.p.defaultValue.value: '\(value)' is not valid JSON (error at byte \(offset))"])
    }

    @Test func jsonNestingIsBounded() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(issues(Self.parameter(deep, .json)).count == 1)
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(issues(Self.parameter(fine, .json)) == [])
    }

    @Test func stringAcceptsAnything() {
        #expect(issues(Self.parameter("", .string)) == [])
        #expect(issues(Self.parameter("{ not json", .string)) == [])
    }

    @Test func longValuesAreCutInMessages() {
        let value = String(repeating: "x", count: 100)
        #expect(issues(Self.parameter(value, .number)) == ["parameters.p.defaultValue.value: '\(String(repeating: "x", count: 40))…' is not a NUMBER value"])
    }

    @Test func conditionalValuesAreTypeChecked() throws {
        let found = try issues("""
        {"conditions":[{"name":"c","expression":"true"}],
         "parameters":{"n":{"defaultValue":{"value":"1"},"conditionalValues":{"c":{"value":"one"}},"valueType":"NUMBER"}}}
        """)
        #expect(found == ["parameters.n.conditionalValues.c.value: 'one' is not a NUMBER value"])
    }

    @Test func unknownValueType() throws {
        let found = try issues(#"{"parameters":{"p":{"defaultValue":{"value":"x"},"valueType":"INTEGER"}}}"#)
        #expect(found == ["parameters.p.valueType: unknown value type 'INTEGER'; use STRING, BOOLEAN, NUMBER or JSON"])
    }

    @Test func rolloutAndExperimentValues() throws {
        let found = try issues("""
        {"parameters":{
          "r":{"defaultValue":{"rolloutValue":{"rolloutId":"","value":"maybe","percent":0}},"valueType":"BOOLEAN"},
          "e":{"defaultValue":{"experimentValue":{"experimentId":"x","exposurePercent":101,"variantValue":[
               {"variantId":"A","value":"abc"},{"variantId":"","noChange":true},{"variantId":"C"}]}},"valueType":"NUMBER"},
          "p":{"defaultValue":{"personalizationValue":{"personalizationId":""}}}}}
        """)
        #expect(found == [
            "parameters.e.defaultValue.experimentValue.exposurePercent: must be between 0 and 100",
            "parameters.e.defaultValue.experimentValue.variantValue[0].value: 'abc' is not a NUMBER value",
            "parameters.e.defaultValue.experimentValue.variantValue[1].variantId: must not be empty",
            "parameters.e.defaultValue.experimentValue.variantValue[2]: a variant needs exactly one of value or noChange",
            "parameters.p.defaultValue.personalizationValue.personalizationId: must not be empty",
            "parameters.r.defaultValue.rolloutValue.rolloutId: must not be empty",
            "parameters.r.defaultValue.rolloutValue.percent: must be between 1 and 100",
            "parameters.r.defaultValue.rolloutValue.value: 'maybe' is not a BOOLEAN value; use true or false",
        ])
    }

    @Test func parameterKeys() {
        let long = String(repeating: "k", count: 257)
        let template = RemoteConfigTemplate(parameters: [
            "9lives": RemoteConfigParameter(), "has-dash": RemoteConfigParameter(), "_ok_1": RemoteConfigParameter(),
            "": RemoteConfigParameter(), long: RemoteConfigParameter(), "ünï": RemoteConfigParameter(),
        ])
        #expect(issues(template) == [
            "parameters.: a parameter key must not be empty",
            "parameters.9lives: parameter key '9lives' must start with a letter or '_' and contain only letters, digits and '_'",
            "parameters.has-dash: parameter key 'has-dash' must start with a letter or '_' and contain only letters, digits and '_'",
            "parameters.\(long): parameter key exceeds 256 characters",
            "parameters.ünï: parameter key 'ünï' must start with a letter or '_' and contain only letters, digits and '_'",
        ])
        var limits = TemplateLimits()
        limits.restrictsParameterKeyCharacters = false
        #expect(issues(template, limits: limits).count == 2)
    }

    @Test func conditionNamesAndColors() throws {
        let found = try issues("""
        {"conditions":[{"name":"","expression":"true"},{"name":"Beta 10% (new)","expression":"true"},
                       {"name":"it's-fine_ok!.","expression":"true","tagColor":"MAUVE"}]}
        """)
        #expect(found == [
            "conditions[0].name: a condition name must not be empty",
            "conditions[1].name: condition name 'Beta 10% (new)' may contain only letters, digits, spaces and - _ ' ! % .",
            "conditions[2].tagColor: unknown tag color 'MAUVE'",
        ])
        let long = RemoteConfigTemplate(conditions: [RemoteConfigCondition(name: String(repeating: "c", count: 257), expression: "true")])
        #expect(issues(long) == ["conditions[0].name: condition name exceeds 256 characters"])
    }

    @Test func descriptionsAndGroupNames() {
        let text257 = String(repeating: "d", count: 257)
        let group257 = String(repeating: "g", count: 257)
        let template = RemoteConfigTemplate(
            parameters: ["p": RemoteConfigParameter(description: text257)],
            parameterGroups: [
                "g": ParameterGroup(description: text257),
                group257: ParameterGroup(),
                "": ParameterGroup(),
            ],
            version: TemplateVersion(description: String(repeating: "v", count: 1025))
        )
        #expect(issues(template) == [
            "version.description: version description exceeds 1024 characters",
            "parameterGroups.: a group name must not be empty",
            "parameterGroups.g.description: group description exceeds 256 characters",
            "parameterGroups.\(group257): group name exceeds 256 characters",
            "parameters.p.description: parameter description exceeds 256 characters",
        ])
        let atLimit = RemoteConfigTemplate(
            parameters: ["p": RemoteConfigParameter(description: String(text257.dropLast()))],
            version: TemplateVersion(description: String(repeating: "v", count: 1024))
        )
        #expect(issues(atLimit) == [])
    }

    @Test func countsAndTotalSize() {
        var limits = TemplateLimits()
        limits.maxParameters = 2
        limits.maxConditions = 1
        limits.maxTotalValueLength = 10
        let template = RemoteConfigTemplate(
            conditions: [RemoteConfigCondition(name: "a", expression: "true"), RemoteConfigCondition(name: "b", expression: "true")],
            parameters: ["x": RemoteConfigParameter(defaultValue: .value("12345"), conditionalValues: ["a": .value("123")])],
            parameterGroups: ["g": ParameterGroup(parameters: ["y": RemoteConfigParameter(defaultValue: .value("ééé")), "z": RemoteConfigParameter()])]
        )
        #expect(issues(template, limits: limits) == [
            "conditions: the template has 2 conditions; the limit is 1",
            "parameters: the template has 3 parameters (groups included); the limit is 2",
            "parameters: parameter values total 11 characters; the limit is 10",
        ])
        limits.maxParameters = 3
        limits.maxConditions = 2
        limits.maxTotalValueLength = 11
        #expect(issues(template, limits: limits) == [])
    }

    @Test func firebaseLimitsByDefault() {
        let limits = TemplateLimits.firebase
        #expect(limits.maxParameters == 3000)
        #expect(limits.maxConditions == 2000)
        #expect(limits.maxParameterKeyLength == 256)
        #expect(limits.maxTotalValueLength == 1_000_000)
        #expect(limits.maxVersionDescriptionLength == 1024)
    }

    @Test func conditionNeedsExactlyOneRule() throws {
        let found = try issues("""
        {"conditions":[{"name":"none"},{"name":"both","expression":"true","condition":{"true":{}}},
                       {"name":"structured","condition":{"true":{}}}]}
        """)
        #expect(found == [
            "conditions[0]: condition 'none' needs an expression",
            "conditions[1]: condition 'both' has both an expression and a structured condition; give one",
            "conditions[2].condition: structured conditions are only for firebase-server templates; give an expression",
        ])
        #expect(try issues(#"{"conditions":[{"name":"none"}]}"#, namespace: .server)
            == ["conditions[0]: condition 'none' needs an expression or a structured condition"])
    }

    @Test func serverTemplatesTakeOnlyPlainValues() throws {
        let found = try issues("""
        {"conditions":[{"name":"c","condition":{"true":{}}}],
         "parameters":{"p":{"defaultValue":{"personalizationValue":{"personalizationId":"x"}},
                            "conditionalValues":{"c":{"rolloutValue":{"rolloutId":"r","value":"v","percent":5}}}},
                       "q":{"defaultValue":{"useInAppDefault":true},"conditionalValues":{"c":{"value":"1"}}}}}
        """, namespace: .server)
        #expect(found == [
            "parameters.p.defaultValue: personalizationValue is not supported in server templates; use value or useInAppDefault",
            "parameters.p.conditionalValues.c: rolloutValue is not supported in server templates; use value or useInAppDefault",
        ])
    }

    @Test func serverTemplatesRejectExpressionsWithoutAServerForm() throws {
        // Device targeting has no structured form (§5.1: percent and custom signals only).
        let found = try issues(#"{"conditions":[{"name":"ios","expression":"device.os == 'ios'"}]}"#, namespace: .server)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("conditions[0].expression: condition 'ios' cannot be used in a server template: ") == true)
        #expect(found.first?.contains(" at offset ") == true)
    }

    @Test func malformedExpressionsNameTheOffset() throws {
        let found = try issues(#"{"conditions":[{"name":"ok","expression":"true"},{"name":"bad","expression":"device.os == "}]}"#)
        #expect(found.count == 1)
        let issue = try #require(found.first)
        #expect(issue.hasPrefix("conditions[1].expression: condition 'bad' does not parse: "))
        #expect(issue.contains(" at offset "))
    }

    @Test func malformedStructuredConditions() throws {
        let found = try issues(#"{"conditions":[{"name":"bad","condition":"nope"}]}"#, namespace: .server)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("conditions[0].condition: invalid condition 'bad': ") == true)
    }

    @Test func errorListsIssuesUpToTheLimit() throws {
        var limits = TemplateLimits()
        limits.maxReportedIssues = 2
        let template = RemoteConfigTemplate(parameters: [
            "a": RemoteConfigParameter(defaultValue: .value("x"), valueType: .number),
            "b": RemoteConfigParameter(defaultValue: .value("y"), valueType: .number),
            "c": RemoteConfigParameter(defaultValue: .value("z"), valueType: .number),
        ])
        let error = #expect(throws: TemplateValidationError.self) {
            try TemplateValidator(limits: limits).validate(template)
        }
        #expect(error?.issues.map(\.path) == ["parameters.a.defaultValue.value", "parameters.b.defaultValue.value"])
        #expect(error?.omittedIssueCount == 1)
        #expect(error?.httpStatus == 400)
        #expect(error?.status == "INVALID_ARGUMENT")
        #expect(error?.message == "[VALIDATION_ERROR]: parameters.a.defaultValue.value: 'x' is not a NUMBER value; parameters.b.defaultValue.value: 'y' is not a NUMBER value (and 1 more)")
    }
}
