package import ConfigCore
package import HTTP1

/// A failure that reaches the client as Google's error JSON with the right status.
package struct APIError: Error {
    let status: Int
    let message: String
    /// Overrides the canonical status derived from `status` (e.g. FAILED_PRECONDITION on a 400).
    var canonicalStatus: String?
    package var headers = HTTPHeaders()
    /// Each problem and where it is, sent in the body's `details` as well as in the message.
    package var fieldViolations: [ErrorBody.FieldViolation] = []

    package init(_ status: Int, _ message: String, canonicalStatus: String? = nil) {
        self.status = status
        self.message = message
        self.canonicalStatus = canonicalStatus
    }

    package var response: HTTPResponse {
        .json(body, status: status, headers: headers)
    }

    /// The error as the stream endpoint answers it: the body wrapped in an array (spec §1.4).
    var streamResponse: HTTPResponse {
        var body: [UInt8] = [UInt8(ascii: "[")]
        body += self.body
        body.append(UInt8(ascii: "]"))
        return .json(body, status: status, headers: headers)
    }

    private var body: [UInt8] {
        ErrorBody.encode(status: status, message: message, canonicalStatus: canonicalStatus, fieldViolations: fieldViolations)
    }

    package static func badRequest(_ message: String) -> APIError { APIError(400, message) }

    /// 400 for a template Firebase would refuse: every issue in the message and, by path, in
    /// the body's `details`.
    package static func invalidTemplate(_ error: TemplateValidationError) -> APIError {
        var invalid = APIError(400, "Invalid template: \(error.message)")
        invalid.fieldViolations = error.issues.map { ErrorBody.FieldViolation(field: $0.path, description: $0.message) }
        return invalid
    }
    package static func notFound(_ message: String) -> APIError { APIError(404, message) }
    /// 503 for a template this worker never read while the store cannot be read: nothing is
    /// known of it here, and an empty answer would clear the client's values.
    static var notLoadedYet: APIError {
        var error = APIError(503, "The store cannot be read and this server has not loaded the template yet; retry shortly.")
        error.headers.add(name: "Retry-After", value: "1")
        return error
    }

    /// 503 for a write on a node that is catching up with the store (docs/scaling.md): it
    /// acknowledges nothing until its workers serve what the store announced.
    static var nodeBehind: APIError {
        var error = APIError(503, "This node is catching up with the store and takes no writes meanwhile; retry, or use another node.")
        error.headers.add(name: "Retry-After", value: "1")
        return error
    }

    static func methodNotAllowed(_ allowed: [HTTPMethod]) -> APIError {
        var error = APIError(405, "Method not allowed here; use \(allowed.map(\.rawValue).joined(separator: ", ")).")
        error.headers.add(name: "Allow", value: allowed.map(\.rawValue).joined(separator: ", "))
        return error
    }
}
