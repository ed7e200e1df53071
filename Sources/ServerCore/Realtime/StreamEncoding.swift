import HTTP1

/// How a held stream's messages are written: the same held stream (admission, fan-out,
/// heartbeats, lifetime) speaks Firebase's real-time protocol or OFREP's event stream.
package enum StreamEncoding: UInt8, CaseIterable, Sendable {
    /// `:streamFetchInvalidations`: one flat JSON object per chunk (spec §4.3).
    case firebase
    /// OFREP's event stream (ADR-0008): Server-Sent Events whose data is a
    /// `refetchEvaluation` event; comments keep an idle stream open.
    case serverSentEvents

    /// The fields of the stream's head.
    var headers: HTTPHeaders {
        switch self {
        case .firebase: Self.firebaseHeaders
        case .serverSentEvents: Self.eventStreamHeaders
        }
    }

    /// Tells the client that `version` is out. `lastModified` (seconds since 1970) is when it
    /// was published, when known.
    func invalidation(version: Int64, lastModified: Int64?) -> [UInt8] {
        switch self {
        case .firebase:
            return RealtimeHub.message(version: version, retryAfter: nil)
        case .serverSentEvents:
            // `id` lets a reconnecting EventSource say what it last heard (`Last-Event-ID`); no
            // space after the colons (optional, WHATWG HTML §9.2.6): every byte is sent to
            // every held stream.
            var text = "id:\(version)\ndata:{\"type\":\"refetchEvaluation\",\"etag\":\"\(version)\""
            if let lastModified { text += ",\"lastModified\":\(lastModified)" }
            return Array((text + "}\n\n").utf8)
        }
    }

    /// The last message before the server closes the stream (at the cap, at shutdown): the
    /// version the client should know when it is `stale`, and when to come back.
    func farewell(version: Int64, stale: Bool, lastModified: Int64?, retryAfter: Int) -> [UInt8] {
        switch self {
        case .firebase:
            return RealtimeHub.message(version: version, retryAfter: retryAfter)
        case .serverSentEvents:
            // `retry` is the reconnection delay in milliseconds (WHATWG HTML §9.2.6).
            let retry = Array("retry:\(retryAfter * 1000)\n\n".utf8)
            return stale ? invalidation(version: version, lastModified: lastModified) + retry : retry
        }
    }

    /// An SSE comment: ignored by clients, it keeps proxies from closing an idle stream.
    static let eventStreamHeartbeat = EncodedChunk(Array(":\n\n".utf8))

    private static let firebaseHeaders: HTTPHeaders = {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: HTTPResponse.jsonContentType)
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Accel-Buffering", value: "no")
        return headers
    }()

    private static let eventStreamHeaders: HTTPHeaders = {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Accel-Buffering", value: "no")
        return headers
    }()
}
