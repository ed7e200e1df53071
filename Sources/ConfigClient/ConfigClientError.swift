import Foundation

/// Errors of the client library: the server could not be reached, it answered with an error,
/// or its answer could not be understood.
public enum ConfigClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No response: connection refused, timeout, broken connection, cancellation.
    case transport(TransportError)
    /// The server answered with an error status (or a 200 carrying only an error).
    case server(ServerError)
    /// A 2xx answer that does not have the documented shape; the text names what is wrong.
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .transport(let error): error.message
        case .server(let error): error.description
        case .invalidResponse(let message): "invalid response: \(message)"
        }
    }
}

/// A Google-style error answer: `{"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT"}}`,
/// also accepted wrapped in an array as on the streaming endpoint.
public struct ServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status of the answer.
    public var httpStatus: Int
    /// The canonical code name, such as `FAILED_PRECONDITION`; empty when the body had none.
    public var status: String
    /// The server's message, or the start of the body when it was not an error envelope.
    public var message: String

    /// - Parameters:
    ///   - httpStatus: the HTTP status.
    ///   - status: the canonical code name.
    ///   - message: the server's message.
    public init(httpStatus: Int, status: String, message: String) {
        self.httpStatus = httpStatus
        self.status = status
        self.message = message
    }

    /// Reads the error envelope of `response`, falling back to its body text.
    public init(response: HTTPResponse) {
        struct Envelope: Decodable {
            struct Body: Decodable {
                var code: Int?
                var message: String?
                var status: String?
            }
            var error: Body
        }
        let decoder = JSONDecoder()
        let envelope = (try? decoder.decode(Envelope.self, from: response.body))
            ?? (try? decoder.decode([Envelope].self, from: response.body))?.first
        if let body = envelope?.error {
            self.init(httpStatus: response.status, status: body.status ?? "", message: body.message ?? "")
        } else {
            let text = String(decoding: response.body.prefix(300), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            self.init(httpStatus: response.status, status: "", message: text.isEmpty ? "no error message" : text)
        }
    }

    public var description: String {
        let code = status.isEmpty ? "HTTP \(httpStatus)" : "HTTP \(httpStatus) \(status)"
        return "\(code): \(message)"
    }
}
