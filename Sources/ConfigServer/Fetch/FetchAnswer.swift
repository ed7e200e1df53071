import EventLoop
import HTTP1

/// One fetch result in wire form (spec §3.3, §3.5), encoded once and shared.
struct FetchAnswer: Sendable {
    /// `{"entries":{…},"state":"UPDATE"|"EMPTY_CONFIG","templateVersion":"N"}`
    let fullBody: [UInt8]
    /// `{"state":"NO_CHANGE","templateVersion":"N"}`
    let noChangeBody: [UInt8]
    /// `etag-{projectNumber}-{namespace}-fetch-{hash}`; the hash covers the entries and the
    /// version, so every publish gives SDKs a new ETag and version (spec §3.5).
    let etag: String
    /// The response's fields, encoded once: CORS, `Cache-Control`, `ETag`, `Content-Type`.
    let fields: [UInt8]
    let templateVersion: Int64

    init(entries: [(key: String, value: String)], templateVersion: Int64, projectNumber: String, namespace: String) {
        self.templateVersion = templateVersion
        var text = "{\"entries\":{"
        for (index, entry) in entries.enumerated() {
            if index > 0 { text += "," }
            ErrorBody.appendJSONString(entry.key, to: &text)
            text += ":"
            ErrorBody.appendJSONString(entry.value, to: &text)
        }
        let state = entries.isEmpty ? "EMPTY_CONFIG" : "UPDATE"
        text += "},\"state\":\"\(state)\",\"templateVersion\":\"\(templateVersion)\"}"
        let body = Array(text.utf8)
        fullBody = body
        noChangeBody = Array("{\"state\":\"NO_CHANGE\",\"templateVersion\":\"\(templateVersion)\"}".utf8)
        etag = "etag-\(projectNumber)-\(namespace)-fetch-\(Self.fnv1a(body))"
        fields = Self.fields(etag: etag)
    }

    /// The answer when the project has no template yet: nothing to apply, version 0.
    static func noTemplate(projectNumber: String, namespace: String) -> FetchAnswer {
        FetchAnswer(noTemplateFor: projectNumber, namespace: namespace)
    }

    private init(noTemplateFor projectNumber: String, namespace: String) {
        templateVersion = 0
        fullBody = Array("{\"entries\":{},\"state\":\"NO_TEMPLATE\",\"templateVersion\":\"0\"}".utf8)
        noChangeBody = Array("{\"state\":\"NO_CHANGE\",\"templateVersion\":\"0\"}".utf8)
        etag = "etag-\(projectNumber)-\(namespace)-fetch-\(Self.fnv1a(fullBody))"
        fields = Self.fields(etag: etag)
    }

    private static func fields(etag: String) -> [UInt8] {
        var headers = HTTPHeaders()
        Application.addCORSFields(to: &headers)
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "ETag", value: etag)
        headers.add(name: "Content-Type", value: HTTPResponse.jsonContentType)
        return HTTPResponseEncoder.encode(fields: headers)
    }

    /// 64-bit FNV-1a: stable across processes and restarts (Swift's Hasher is seeded per run).
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
