package import ConfigCore
import Foundation
import HTTP1

/// A template's OFREP evaluation for one condition-outcome vector, encoded once and shared by
/// every client with those outcomes (as ``FetchAnswer`` is for the Firebase fetch). The mapping
/// is docs/openfeature.md's: what decided each parameter comes from the template's dry-run
/// explanation, the same one `remoteConfig:evaluate` shows. A class: an answer passes through
/// the cache, the poll record and the response, and a struct of six buffers would be retained
/// six times at each step.
package final class OFREPAnswer: Sendable {
    /// One flag's evaluation: `{"key":…,"value":…,"reason":…,"variant":…}`, or an
    /// `evaluationFailure` when its value cannot be read as its type.
    package struct Item: Sendable {
        package let bytes: [UInt8]
        package let succeeded: Bool
    }

    /// Each flag's item, by key.
    package let items: [String: Item]
    /// `"flags":[…],"metadata":{"version":"N"}}`: the bulk answer after its opening brace and
    /// the event streams, which name the client (sent before it, so this is sent as it is).
    package let bulkBody: [UInt8]
    /// A strong ETag over `bulkBody` (unquoted): it moves when the answer for this context does.
    package let etag: String
    /// `ETag`, `Cache-Control` and `Content-Type` of a bulk answer, encoded once.
    package let fields: [UInt8]
    /// `ETag` and `Cache-Control` of a 304.
    package let notModifiedFields: [UInt8]
    package let templateVersion: Int64
    /// `&version=N"}}],`: the end of the event stream's address and of the list, after the
    /// client's own parameters.
    package let eventStreamEnd: [UInt8]

    /// What the encoding reads of a template besides the evaluation, gathered once per
    /// template rather than for each answer (which would sort every parameter each time).
    package struct Shape: Sendable {
        /// Each parameter's type, by key (the ungrouped parameter's, then the first group's).
        let types: [String: ParameterValueType]
        /// Whether each condition, by name, splits clients by percent.
        let splitsByPercent: [String: Bool]

        init(_ compiled: CompiledTemplate) {
            var types: [String: ParameterValueType] = [:]
            for entry in compiled.template.allParameters where types[entry.key] == nil {
                types[entry.key] = entry.parameter.valueType
            }
            self.types = types
            var splits: [String: Bool] = [:]
            for (index, name) in compiled.conditionNames.enumerated() where splits[name] == nil {
                splits[name] = compiled.splitsByPercent[index]
            }
            splitsByPercent = splits
        }
    }

    package convenience init(compiled: CompiledTemplate, shape: Shape, outcomes: ConditionOutcomes, templateVersion: Int64) {
        var items: [String: Item] = [:]
        var ordered: [Item] = []
        let parameters = compiled.explain(for: outcomes).parameters
        items.reserveCapacity(parameters.count)
        ordered.reserveCapacity(parameters.count)
        for explanation in parameters {
            let splits = explanation.condition.flatMap { shape.splitsByPercent[$0] } ?? false
            let item = Self.item(explanation, type: shape.types[explanation.key] ?? .string, splitsByPercent: splits)
            items[explanation.key] = item
            ordered.append(item)
        }
        self.init(items: items, ordered: ordered, templateVersion: templateVersion)
    }

    private init(items: [String: Item], ordered: [Item], templateVersion: Int64) {
        self.items = items
        self.templateVersion = templateVersion
        eventStreamEnd = Array("&version=\(templateVersion)\"}}],".utf8)
        var body = Array("\"flags\":[".utf8)
        for (index, item) in ordered.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += item.bytes
        }
        body += Array("],\"metadata\":{\"version\":\"\(templateVersion)\"}}".utf8)
        bulkBody = body
        etag = String(FetchAnswer.fnv1a(body), radix: 16)
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: "\"\(etag)\"")
        // Stored, but asked again each time: the ETag then saves the body.
        headers.add(name: "Cache-Control", value: "no-cache")
        notModifiedFields = HTTPResponseEncoder.encode(fields: headers)
        headers.add(name: "Content-Type", value: HTTPResponse.jsonContentType)
        fields = HTTPResponseEncoder.encode(fields: headers)
    }

    /// The answer when the project has no template yet: no flags, version 0.
    package static let noTemplate = OFREPAnswer(items: [:], ordered: [], templateVersion: 0)

    /// The reason and variant (docs/openfeature.md, "Reasons"), then the value as its type.
    private static func item(_ explanation: ParameterExplanation, type: ParameterValueType, splitsByPercent: Bool) -> Item {
        let split = splitsByPercent || explanation.rollout != nil || explanation.experiment != nil
        let reason: String, variant: String
        switch explanation.source {
        case .conditionalValue:
            reason = split ? "SPLIT" : "TARGETING_MATCH"
            variant = explanation.condition ?? "default"
        case .defaultValue:
            reason = split ? "SPLIT" : "STATIC"
            variant = "default"
        case .unset:
            // Nothing applies (no default value, or a rollout the client is not in): as with
            // Firebase, the client keeps its own default.
            reason = "DEFAULT"
            variant = "default"
        }
        // Bytes throughout: an answer is built for each outcome vector after every publish.
        var bytes = Array("{\"key\":".utf8)
        ErrorBody.appendJSONString(explanation.key, to: &bytes)
        if explanation.effect == .value, let value = explanation.value {
            bytes += ",\"value\":".utf8
            if let failure = appendJSONValue(value, type: type, to: &bytes) {
                return Item(bytes: OFREPError.body(code: .parseError, details: failure.details, key: explanation.key), succeeded: false)
            }
        }
        bytes += ",\"reason\":\"\(reason)\",\"variant\":".utf8
        ErrorBody.appendJSONString(variant, to: &bytes)
        appendMetadata(explanation, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return Item(bytes: bytes, succeeded: true)
    }

    /// `,"metadata":{…}` naming the rollout or experiment that served the value, if any.
    private static func appendMetadata(_ explanation: ParameterExplanation, to bytes: inout [UInt8]) {
        var members: [(String, String)] = []
        if let rolloutId = explanation.rollout?.rolloutId { members.append(("rolloutId", rolloutId)) }
        if let experiment = explanation.experiment, let experimentId = experiment.experimentId {
            members.append(("experimentId", experimentId))
            if let variantId = experiment.variantId { members.append(("experimentVariantId", variantId)) }
        }
        guard !members.isEmpty else { return }
        bytes += ",\"metadata\":{".utf8
        for (index, (name, value)) in members.enumerated() {
            bytes += (index > 0 ? ",\"\(name)\":" : "\"\(name)\":").utf8
            ErrorBody.appendJSONString(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    struct ValueFailure: Error {
        let details: String
    }

    /// Appends a parameter value as the JSON its type calls for, or tells why it cannot:
    /// BOOLEAN as a boolean (the SDKs' rule), NUMBER as an integer when integral (providers
    /// refuse 5.0 for an integer flag), else a float; JSON as an object, any other JSON value
    /// wrapped as `{"value": …}`; the rest as a string.
    static func appendJSONValue(_ value: String, type: ParameterValueType, to bytes: inout [UInt8]) -> ValueFailure? {
        switch type {
        case .boolean:
            bytes += (ResolvedValue(value: value, source: .remote).boolValue ? "true" : "false").utf8
        case .number:
            guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number.isFinite else {
                return ValueFailure(details: "The NUMBER value '\(value)' is not a number.")
            }
            // Integers beyond 2^53 lose digits as doubles: they are sent as floats.
            let integral = number.rounded() == number && abs(number) < 9_007_199_254_740_992
            bytes += (integral ? String(Int64(number)) : String(number)).utf8
        case .json:
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8), options: [.fragmentsAllowed]) else {
                return ValueFailure(details: "The JSON value is not valid JSON.")
            }
            bytes += (parsed is [String: Any] ? trimmed : "{\"value\":\(trimmed)}").utf8
        default:
            ErrorBody.appendJSONString(value, to: &bytes)
        }
        return nil
    }
}
