import ConfigCore
import Foundation
import Testing

@Suite struct TemplateCodingTests {
    @Test func exportedTemplateDecodesEveryField() throws {
        let template = try TemplateFixtures.clientExport()
        #expect(template.conditions.map(\.name) == ["ios_users", "beta_10pct", "north_america", "app_2_1_plus", "gold_tier"])
        #expect(template.conditions[0] == RemoteConfigCondition(name: "ios_users", expression: "device.os == 'ios'", tagColor: "INDIGO"))
        #expect(template.conditions[4].tagColor == nil)

        let checkout = try #require(template.parameters["checkout_v2_enabled"])
        #expect(checkout.valueType == .boolean)
        #expect(checkout.defaultValue == .value("false"))
        #expect(checkout.conditionalValues == ["ios_users": .useInAppDefault, "beta_10pct": .value("true")])
        #expect(checkout.description == "Gate for the new checkout")
        #expect(template.parameters["promo_banner_text"]?.defaultValue == .useInAppDefault)
        #expect(template.parameters["new_search_ranking"]?.conditionalValues["app_2_1_plus"]
            == .rollout(RolloutValue(rolloutId: "rollout_3", value: "true", percent: 25)))
        #expect(template.parameters["recommended_category"]?.defaultValue
            == .personalization(PersonalizationValue(personalizationId: "p13n_7")))

        #expect(template.parameterGroups.keys.sorted() == ["onboarding", "pricing"])
        #expect(template.parameterGroups["onboarding"]?.description == "First-run screens")
        #expect(template.parameterGroups["pricing"]?.parameters["price_tiers"]?.valueType == .json)

        let version = try #require(template.version)
        #expect(version.versionNumber == 42)
        #expect(version.updateTime == Timestamp(seconds: 1_772_619_330, nanoseconds: 123_456_000))
        #expect(version.updateUser == TemplateUser(email: "ops@example.com", name: "Ops Team", imageUrl: "https://lh3.googleusercontent.com/a/default-user=s64"))
        #expect(version.updateOrigin == .console)
        #expect(version.updateType == .incrementalUpdate)
        #expect(version.rollbackSource == nil)
        #expect(version.isLegacy == nil)
    }

    @Test func exportRoundTrips() throws {
        let template = try TemplateFixtures.clientExport()
        let encoded = template.jsonData()
        let again = try RemoteConfigTemplate.decode(json: encoded)
        #expect(again == template)
        // Canonical: encoding the decoded copy gives the same bytes.
        #expect(again.jsonData() == encoded)
    }

    @Test func keyFieldsEncodeByteForByte() throws {
        let template = try TemplateFixtures.clientExport()
        #expect(TemplateFixtures.json(template.version) == #"{"description":"enable checkout beta","updateOrigin":"CONSOLE","updateTime":"2026-03-04T10:15:30.123456Z","updateType":"INCREMENTAL_UPDATE","updateUser":{"email":"ops@example.com","imageUrl":"https://lh3.googleusercontent.com/a/default-user=s64","name":"Ops Team"},"versionNumber":"42"}"#)
        #expect(TemplateFixtures.json(template.conditions[2]) == #"{"expression":"device.country in ['US', 'CA'] && device.language in ['en-US', 'fr-CA']","name":"north_america","tagColor":"BLUE"}"#)
        #expect(TemplateFixtures.json(template.parameters["checkout_v2_enabled"]) == #"{"conditionalValues":{"beta_10pct":{"value":"true"},"ios_users":{"useInAppDefault":true}},"defaultValue":{"value":"false"},"description":"Gate for the new checkout","valueType":"BOOLEAN"}"#)
        #expect(TemplateFixtures.json(template.parameters["new_search_ranking"]?.conditionalValues["app_2_1_plus"]) == #"{"rolloutValue":{"percent":25,"rolloutId":"rollout_3","value":"true"}}"#)
        // Value strings come back exactly, escapes and non-ASCII included.
        let encoded = String(decoding: template.jsonData(), as: UTF8.self)
        #expect(encoded.contains(#""value":"{\"darkMode\":false,\"fonts\":[\"Inter\",\"Roboto\"],\"path\":\"/v2/home\"}""#))
        #expect(encoded.contains(#""value":"Free shipping on orders over $50 — ends Sunday! 🚚""#))
    }

    @Test func encodingIsSortedAndDropsUnknownMembers() throws {
        let encoded = String(decoding: try TemplateFixtures.clientExport().jsonData(), as: UTF8.self)
        #expect(encoded.hasPrefix(#"{"conditions":[{"expression":"device.os == 'ios'","name":"ios_users","tagColor":"INDIGO"}"#))
        #expect(!encoded.contains("etag"))
        let order = ["\"conditions\"", "\"parameterGroups\"", "\"parameters\"", "\"version\""].map {
            encoded.range(of: $0)!.lowerBound
        }
        #expect(order == order.sorted())
    }

    @Test func emptyTemplateWritesAllCollections() throws {
        #expect(TemplateFixtures.json(RemoteConfigTemplate()) == #"{"conditions":[],"parameterGroups":{},"parameters":{}}"#)
        let fromNulls = try TemplateFixtures.template(#"{"conditions":null,"parameters":null}"#)
        #expect(fromNulls == RemoteConfigTemplate())
        #expect(try TemplateFixtures.template("{}") == RemoteConfigTemplate())
    }

    @Test func snakeCaseAndNumericInt64sAreAccepted() throws {
        let template = try TemplateFixtures.template("""
        {"conditions":[{"name":"c","expression":"true","tag_color":"PINK"}],
         "parameter_groups":{"g":{"parameters":{"k":{"default_value":{"use_in_app_default":true},
           "conditional_values":{"c":{"rollout_value":{"rollout_id":"r","value":"v","percent":5}}},
           "value_type":"STRING"}}}},
         "version":{"version_number":7,"update_time":"2026-01-01T00:00:00+01:00","rollback_source":"3",
           "update_user":{"image_url":"u"},"legacy":true}}
        """)
        #expect(template.conditions[0].tagColor == "PINK")
        let parameter = try #require(template.parameterGroups["g"]?.parameters["k"])
        #expect(parameter.defaultValue == .useInAppDefault)
        #expect(parameter.conditionalValues["c"] == .rollout(RolloutValue(rolloutId: "r", value: "v", percent: 5)))
        #expect(template.version?.versionNumber == 7)
        #expect(template.version?.rollbackSource == 3)
        #expect(template.version?.updateUser?.imageUrl == "u")
        #expect(template.version?.isLegacy == true)
        #expect(template.version?.updateTime?.rfc3339 == "2025-12-31T23:00:00.000Z")
        // Written back in lowerCamelCase, int64s as strings.
        let encoded = TemplateFixtures.json(template.version)
        #expect(encoded == #"{"isLegacy":true,"rollbackSource":"3","updateTime":"2025-12-31T23:00:00.000Z","updateUser":{"imageUrl":"u"},"versionNumber":"7"}"#)
    }

    @Test func missingOrUnspecifiedValueTypeReadsAsString() throws {
        let template = try TemplateFixtures.template("""
        {"parameters":{"a":{"defaultValue":{"value":"x"}},
                       "b":{"defaultValue":{"value":"y"},"valueType":"PARAMETER_VALUE_TYPE_UNSPECIFIED"}}}
        """)
        #expect(template.parameters["a"]?.valueType == .string)
        #expect(template.parameters["b"]?.valueType == .string)
        #expect(TemplateFixtures.json(template.parameters["a"]) == #"{"defaultValue":{"value":"x"},"valueType":"STRING"}"#)
    }

    @Test func experimentValuesRoundTrip() throws {
        let json = #"{"experimentValue":{"experimentId":"exp_1","exposurePercent":50,"variantValue":[{"value":"blue","variantId":"A"},{"noChange":true,"variantId":"B"}]}}"#
        let value = try JSONDecoder().decode(ParameterValue.self, from: Data(json.utf8))
        #expect(value == .experiment(ExperimentValue(
            experimentId: "exp_1",
            variantValue: [ExperimentVariantValue(variantId: "A", value: "blue"), ExperimentVariantValue(variantId: "B", value: nil, noChange: true)],
            exposurePercent: 50
        )))
        #expect(TemplateFixtures.json(value) == json)
    }

    @Test func serverExportKeepsStructuredConditions() throws {
        let template = try TemplateFixtures.serverExport()
        #expect(template.conditions.map(\.name) == ["canary", "everyone"])
        #expect(template.conditions.allSatisfy { $0.expression == nil && $0.condition != nil })
        let percent = template.conditions[0].condition?["orCondition"]?["conditions"]
        guard case .array(let ors)? = percent, case .array(let ands)? = ors.first?["andCondition"]?["conditions"] else {
            Issue.record("unexpected shape")
            return
        }
        #expect(ands.first?["percent"]?["microPercentRange"]?["microPercentUpperBound"] == .number(5_000_000))
        let again = try RemoteConfigTemplate.decode(json: template.jsonData())
        #expect(again == template)
        #expect(String(decoding: template.jsonData(), as: UTF8.self).contains(#""microPercentUpperBound":5000000"#))
    }

    @Test(arguments: [
        (#"{"parameters":{"a":{"defaultValue":{}}}}"#, "parameters.a.defaultValue: a parameter value needs exactly one of value, useInAppDefault, personalizationValue, rolloutValue, experimentValue"),
        (#"{"parameters":{"a":{"defaultValue":{"value":"x","useInAppDefault":true}}}}"#, "parameters.a.defaultValue: a parameter value needs exactly one of value, useInAppDefault, personalizationValue, rolloutValue, experimentValue (found value, useInAppDefault)"),
        (#"{"parameters":{"a":{"conditionalValues":{"c":{"useInAppDefault":false}}}}}"#, "parameters.a.conditionalValues.c.useInAppDefault: useInAppDefault must be true when present"),
        (#"{"parameters":{"a":{"defaultValue":{"value":5}}}}"#, "parameters.a.defaultValue.value: expected a string"),
        (#"{"conditions":[{"name":"a","expression":"true"},{"expression":"true"}]}"#, "conditions[1].name: required member is missing"),
        (#"{"conditions":{}}"#, "conditions: expected an array"),
        (#"{"version":{"versionNumber":"4x"}}"#, "version.versionNumber: '4x' is not an int64"),
        (#"{"version":{"updateTime":"yesterday"}}"#, "version.updateTime: 'yesterday' is not an RFC 3339 timestamp"),
        (#"{"parameters":[1]}"#, "parameters: expected an object"),
        (#"{"conditions": ["#, "the body is not valid JSON"),
    ])
    func decodingErrorsNameThePath(json: String, message: String) {
        #expect(throws: TemplateValidationError(issues: [Self.issue(message)])) {
            try TemplateFixtures.template(json)
        }
    }

    private static func issue(_ text: String) -> TemplateValidationError.Issue {
        guard let range = text.range(of: ": "), !text.hasPrefix("the body") else {
            return .init(path: "", message: text)
        }
        return .init(path: String(text[..<range.lowerBound]), message: String(text[range.upperBound...]))
    }
}
