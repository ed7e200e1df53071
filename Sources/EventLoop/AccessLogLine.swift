import HTTP1

/// What the access log needs of a request until its response is written.
struct AccessLogLine {
    let method: String
    let target: String
    let client: String
    let requestID: String
    let startedMillis: Int64

    /// `target` with the value of each query parameter named in `secrets` replaced, so an API
    /// key sent as `?key=` (the way Firebase's web SDK sends it) never reaches a log. Names are
    /// matched after percent-decoding, as the router reads them.
    static func redacting(_ target: String, secrets: Set<String>) -> String {
        guard !secrets.isEmpty, let queryStart = target.firstIndex(of: "?") else { return target }
        let query = target[target.index(after: queryStart)...]
        var redacted = false
        let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { parameter -> Substring in
            let name = parameter.prefix { $0 != "=" }
            guard secrets.contains(RequestURI.decodeQueryComponent(name)) else { return parameter }
            redacted = true
            return name + "=REDACTED"
        }
        guard redacted else { return target }
        return target[...queryStart] + parameters.joined(separator: "&")
    }
}
