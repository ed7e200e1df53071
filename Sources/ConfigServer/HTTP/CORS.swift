import HTTP1

/// Cross-origin answers for the browser SDKs, which call fetch and the stream from web pages
/// of other origins (spec §1.6).
enum CORS {
    /// What every answer to a browser SDK carries, errors and streams included: without it
    /// a cross-origin page sees a network error instead of the status.
    static func addFields(to headers: inout HTTPHeaders) {
        headers.add(name: "Access-Control-Allow-Origin", value: "*")
        headers.add(name: "Access-Control-Expose-Headers", value: "ETag")
    }

    /// The answer to a preflight `OPTIONS` request.
    static func preflight() -> HTTPResponse {
        var headers = HTTPHeaders()
        addFields(to: &headers)
        headers.add(name: "Access-Control-Allow-Methods", value: "POST, OPTIONS")
        headers.add(name: "Access-Control-Allow-Headers",
                    value: "Content-Type, Content-Encoding, If-None-Match, X-Goog-Api-Key, X-Goog-Firebase-Installations-Auth")
        headers.add(name: "Access-Control-Max-Age", value: "3600")
        return HTTPResponse(status: 204, headers: headers)
    }
}
