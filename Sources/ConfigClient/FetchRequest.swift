import Foundation

/// Why a fetch is made; sent as `X-Firebase-RC-Fetch-Type`.
enum FetchType: Sendable, Equatable {
    case base
    case realtime(attempt: Int)

    var headerValue: String {
        switch self {
        case .base: "BASE/1"
        case .realtime(let attempt): "REALTIME/\(attempt)"
        }
    }
}

/// Body of `POST …/namespaces/{ns}:fetch` (camelCase field names, as Android sends them).
struct FetchRequestBody: Encodable, Sendable {
    var appInstanceId: String
    var appInstanceIdToken: String?
    var appId: String
    var sdkVersion: String
    var context: ClientContext

    private enum CodingKeys: String, CodingKey {
        case appInstanceId, appInstanceIdToken, appId, sdkVersion
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(appInstanceId, forKey: .appInstanceId)
        try container.encodeIfPresent(appInstanceIdToken, forKey: .appInstanceIdToken)
        try container.encode(appId, forKey: .appId)
        try container.encode(sdkVersion, forKey: .sdkVersion)
        // The context's fields sit at the top level of the same object.
        try context.encode(to: encoder)
    }
}

/// Body of `POST …/namespaces/{ns}:streamFetchInvalidations`.
struct RealtimeRequestBody: Encodable, Sendable {
    var project: String
    var namespace: String
    var lastKnownVersionNumber: JSONInt64
    var appId: String
    var sdkVersion: String
    var appInstanceId: String
}

/// Builds the fetch and stream requests of one client.
struct ClientRequests: Sendable {
    let configuration: ClientConfiguration
    let appInstanceId: String

    private var paths: APIPaths { APIPaths(baseURL: configuration.baseURL, project: configuration.project) }

    private func headers(etag: String?) -> [String: String] {
        var headers = ["Content-Type": "application/json", "Accept": "application/json", "X-Goog-Api-Key": configuration.apiKey]
        if let etag { headers["If-None-Match"] = etag }
        return headers
    }

    static func encode(_ body: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, optionals and string maps only: encoding cannot fail.
        return try! encoder.encode(body)
    }

    /// The fetch request; `etag` is the last fetch's ETag, sent as `If-None-Match`.
    func fetch(etag: String?, type: FetchType) -> HTTPRequest {
        let body = FetchRequestBody(
            appInstanceId: appInstanceId,
            appInstanceIdToken: configuration.appInstanceIdToken,
            appId: configuration.appId,
            sdkVersion: configuration.sdkVersion,
            context: configuration.context
        )
        var headers = headers(etag: etag)
        headers["X-Firebase-RC-Fetch-Type"] = type.headerValue
        return HTTPRequest(
            method: .post,
            url: paths.fetch(namespace: configuration.namespace),
            headers: headers,
            body: Self.encode(body),
            timeout: configuration.fetchTimeout
        )
    }

    /// The real-time stream request for a client whose last fetched version is `lastKnownVersion`.
    func streamInvalidations(lastKnownVersion: Int64, etag: String?) -> HTTPRequest {
        let body = RealtimeRequestBody(
            project: configuration.project,
            namespace: configuration.namespace,
            lastKnownVersionNumber: JSONInt64(lastKnownVersion),
            appId: configuration.appId,
            sdkVersion: configuration.sdkVersion,
            appInstanceId: appInstanceId
        )
        return HTTPRequest(
            method: .post,
            url: paths.streamInvalidations(namespace: configuration.namespace),
            headers: headers(etag: etag),
            body: Self.encode(body),
            timeout: configuration.fetchTimeout
        )
    }
}
