import HTTP1

/// Cross-origin answers for the browser SDKs, which call fetch and the stream from web pages
/// of other origins (spec §1.6).
enum CORS {
    /// What every answer to a browser SDK carries, errors and streams included: without it
    /// a cross-origin page sees a network error instead of the status. `Exchange` adds them,
    /// once, to every answer of the routes browsers call.
    static let fields = HTTPHeaders([
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Expose-Headers", "ETag"),
    ])

    static func addFields(to headers: inout HTTPHeaders) {
        // Most answers (a cached fetch answer's fields are pre-encoded) have no other fields:
        // they share this one value instead of building their own.
        guard headers.count > 0 else {
            headers = fields
            return
        }
        for field in fields { headers.add(name: field.name, value: field.value) }
    }

    /// The answer to a preflight `OPTIONS` request (the fields above are added with every
    /// answer of the route).
    static func preflight() -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "Access-Control-Allow-Methods", value: "GET, POST, OPTIONS")
        // The Firebase SDKs' fields, then OFREP providers' (the key, or a bearer token).
        headers.add(name: "Access-Control-Allow-Headers",
                    value: "Content-Type, Content-Encoding, If-None-Match, X-Goog-Api-Key, X-Goog-Firebase-Installations-Auth, "
                        + "X-API-Key, Authorization, Last-Event-ID")
        headers.add(name: "Access-Control-Max-Age", value: "3600")
        return HTTPResponse(status: 204, headers: headers)
    }
}
