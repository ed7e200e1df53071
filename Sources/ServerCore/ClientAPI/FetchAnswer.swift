import ConfigCore
import EventLoop
import HTTP1

/// One fetch result in wire form (spec §3.3, §3.5), encoded once and shared.
package struct FetchAnswer: Sendable {
    /// `{"entries":{…},"state":"UPDATE"|"EMPTY_CONFIG","templateVersion":"N"}`, with
    /// `experimentDescriptions` and `rolloutMetadata` after the entries when the client is in
    /// an experiment or a rollout.
    let fullBody: [UInt8]
    /// `{"state":"NO_CHANGE","templateVersion":"N"}`
    let noChangeBody: [UInt8]
    /// `etag-{projectNumber}-{namespace}-fetch-{hash}`; the hash covers the entries and the
    /// version, so every publish gives SDKs a new ETag and version (spec §3.5).
    let etag: String
    /// The response's fields, encoded once: `Cache-Control`, `ETag`, `Content-Type` (the
    /// exchange adds the browser fields).
    let fields: [UInt8]
    let templateVersion: Int64

    /// - Parameter startTime: when the template was published; the `experimentStartTime` of
    ///   its experiments (the template does not say when an experiment started).
    init(config: ServedConfig, templateVersion: Int64, startTime: Timestamp?, projectNumber: String, namespace: TemplateNamespace) {
        self.templateVersion = templateVersion
        var text = "{\"entries\":{"
        for (index, entry) in config.entries.enumerated() {
            if index > 0 { text += "," }
            ErrorBody.appendJSONString(entry.key, to: &text)
            text += ":"
            ErrorBody.appendJSONString(entry.value, to: &text)
        }
        text += "}"
        if !config.experiments.isEmpty {
            Self.appendExperimentDescriptions(config.experiments, startTime: startTime, to: &text)
        }
        if !config.rollouts.isEmpty {
            Self.appendRolloutMetadata(config.rollouts, to: &text)
        }
        let state = config.entries.isEmpty && config.experiments.isEmpty && config.rollouts.isEmpty ? "EMPTY_CONFIG" : "UPDATE"
        text += ",\"state\":\"\(state)\",\"templateVersion\":\"\(templateVersion)\"}"
        let body = Array(text.utf8)
        fullBody = body
        noChangeBody = Array("{\"state\":\"NO_CHANGE\",\"templateVersion\":\"\(templateVersion)\"}".utf8)
        etag = "etag-\(projectNumber)-\(namespace.rawValue)-fetch-\(Self.fnv1a(body))"
        fields = Self.fields(etag: etag)
    }

    /// Trigger timeout and time to live of an experiment on the device: 180 days, Firebase's
    /// longest, because a template names neither.
    static let experimentLifetimeMillis = "15552000000"

    /// `,"rolloutMetadata":[{"affectedParameterKeys":[…],"rolloutId":"…","variantId":"…"}]`,
    /// the shape the SDKs read (Android `ConfigContainer`, iOS `RCNConfigContent`).
    private static func appendRolloutMetadata(_ rollouts: [RolloutMembership], to text: inout String) {
        appendArray("rolloutMetadata", rollouts.map { rollout in
            (rollout.affectedParameterKeys, [("rolloutId", rollout.rolloutId), ("variantId", rollout.variantId)])
        }, to: &text)
    }

    /// `,"experimentDescriptions":[…]` with every field A/B Testing requires (Android
    /// `AbtExperimentInfo`); the start time with milliseconds, the form iOS parses.
    private static func appendExperimentDescriptions(_ experiments: [ExperimentMembership], startTime: Timestamp?, to text: inout String) {
        let time = startTime ?? Timestamp(seconds: 0)
        let start = Timestamp(seconds: time.seconds, nanoseconds: time.nanoseconds / 1_000_000 * 1_000_000).rfc3339
        appendArray("experimentDescriptions", experiments.map { experiment in
            (experiment.affectedParameterKeys, [
                ("experimentId", experiment.experimentId), ("experimentStartTime", start),
                ("timeToLiveMillis", experimentLifetimeMillis), ("triggerTimeoutMillis", experimentLifetimeMillis),
                ("variantId", experiment.variantId),
            ])
        }, to: &text)
    }

    /// `,"name":[{"affectedParameterKeys":[…],"member":"value",…},…]`, members in the order given.
    private static func appendArray(_ name: String, _ objects: [(keys: [String], members: [(String, String)])], to text: inout String) {
        text += ",\"\(name)\":["
        for (index, object) in objects.enumerated() {
            text += index > 0 ? ",{\"affectedParameterKeys\":[" : "{\"affectedParameterKeys\":["
            for (keyIndex, key) in object.keys.enumerated() {
                if keyIndex > 0 { text += "," }
                ErrorBody.appendJSONString(key, to: &text)
            }
            text += "]"
            for (member, value) in object.members {
                text += ",\"\(member)\":"
                ErrorBody.appendJSONString(value, to: &text)
            }
            text += "}"
        }
        text += "]"
    }

    /// The answer when the project has no template yet: nothing to apply, version 0.
    static func noTemplate(projectNumber: String, namespace: TemplateNamespace) -> FetchAnswer {
        FetchAnswer(noTemplateFor: projectNumber, namespace: namespace)
    }

    private init(noTemplateFor projectNumber: String, namespace: TemplateNamespace) {
        templateVersion = 0
        fullBody = Array("{\"entries\":{},\"state\":\"NO_TEMPLATE\",\"templateVersion\":\"0\"}".utf8)
        noChangeBody = Array("{\"state\":\"NO_CHANGE\",\"templateVersion\":\"0\"}".utf8)
        etag = "etag-\(projectNumber)-\(namespace.rawValue)-fetch-\(Self.fnv1a(fullBody))"
        fields = Self.fields(etag: etag)
    }

    private static func fields(etag: String) -> [UInt8] {
        var headers = HTTPHeaders()
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "ETag", value: etag)
        headers.add(name: "Content-Type", value: HTTPResponse.jsonContentType)
        return HTTPResponseEncoder.encode(fields: headers)
    }

    /// 64-bit FNV-1a: stable across processes and restarts (Swift's Hasher is seeded per run).
    package static func fnv1a<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
