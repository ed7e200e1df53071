package import EventLoop
package import HTTP1

/// A failure of an OFREP request, answered in the protocol's error shape (openapi.yaml
/// `evaluationFailure`, `bulkEvaluationFailure`, `flagNotFound`, `generalErrorResponse`):
/// `{"key":…,"errorCode":…,"errorDetails":…}`, `key` only on a single flag's evaluation.
package struct OFREPError: AnsweringError {
    /// The protocol's error codes; `GENERAL` also stands for the statuses it names none for
    /// (401, 403, 405, 413, 429, 5xx).
    package enum Code: String {
        case parseError = "PARSE_ERROR"
        case targetingKeyMissing = "TARGETING_KEY_MISSING"
        case invalidContext = "INVALID_CONTEXT"
        case flagNotFound = "FLAG_NOT_FOUND"
        case general = "GENERAL"
    }

    let status: Int
    let code: Code
    let details: String
    /// The flag of a single evaluation.
    var key: String?
    package var headers = HTTPHeaders()

    package init(_ status: Int, _ code: Code, _ details: String, key: String? = nil) {
        self.status = status
        self.code = code
        self.details = details
        self.key = key
    }

    /// The same failure as the Firebase API words it (a 405, a key refused), in OFREP's shape.
    package init(_ error: APIError, key: String?) {
        self.init(error.status, error.status == 404 ? .flagNotFound : .general, error.message, key: key)
        headers = error.headers
    }

    package var response: HTTPResponse {
        .json(Self.body(code: code, details: details, key: key), status: status, headers: headers)
    }

    static func body(code: Code, details: String, key: String?) -> [UInt8] {
        var text = "{"
        if let key {
            text += "\"key\":"
            ErrorBody.appendJSONString(key, to: &text)
            text += ","
        }
        text += "\"errorCode\":\"\(code.rawValue)\",\"errorDetails\":"
        ErrorBody.appendJSONString(details, to: &text)
        return Array((text + "}").utf8)
    }

    /// What the HTTP server answers by itself under `/ofrep/` (a body too large, a request too
    /// slow): the protocol's shape, so that a provider reads it like any other error.
    package static let transportFormat = ErrorBodyFormat(contentType: HTTPResponse.jsonContentType) { status, message in
        body(code: status == 400 ? .parseError : .general, details: message, key: nil)
    }
}
