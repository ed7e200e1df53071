public import Foundation

/// One HTTP request as the client library sends it.
public struct HTTPRequest: Sendable {
    /// The request method.
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case delete = "DELETE"
        case patch = "PATCH"
    }

    /// The request method.
    public var method: Method
    /// The absolute URL, query included.
    public var url: String
    /// Header fields; names are sent as written.
    public var headers: [String: String]
    /// The body, sent as is (`nil`: none).
    public var body: Data?
    /// Total time allowed for `send`; for streams only the connection phase is limited by it.
    public var timeout: TimeInterval

    /// - Parameters:
    ///   - method: the request method.
    ///   - url: the absolute URL.
    ///   - headers: header fields.
    ///   - body: the request body, sent as is.
    ///   - timeout: seconds allowed (see ``timeout``).
    public init(method: Method, url: String, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval = 60) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A complete HTTP response.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields with lower-cased names.
    public var headers: [String: String]
    /// The body bytes, decoded from any content encoding.
    public var body: Data

    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: header fields; names are lower-cased here.
    ///   - body: the body bytes.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }

    /// The value of header `name` (case-insensitive), or `nil`.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}

/// What a streaming request reports, in this order: at most one `head`, any number of `data`,
/// exactly one `end`.
public enum StreamEvent: Sendable {
    /// Status line and headers of the final (non-1xx) response.
    case head(status: Int, headers: [String: String])
    /// Body bytes as they arrive; chunk boundaries carry no meaning.
    case data(Data)
    /// The transfer is over: `nil` after a clean end of the body, otherwise why it stopped.
    case end(TransportError?)
}

/// A running streaming request.
public protocol StreamHandle: Sendable {
    /// Stops the transfer; the stream then reports `.end(.cancelled)` unless it already ended.
    func cancel()
}

/// Sends HTTP requests. ``CurlTransport`` is the real one; tests substitute their own.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the whole response, whatever its status.
    /// - Throws: ``TransportError`` when no response arrived.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse

    /// Starts a long-lived request and reports its progress to `onEvent`, on a background thread,
    /// one event at a time. Events never arrive from within this call: callers may hold a lock
    /// that `onEvent` also takes.
    func stream(_ request: HTTPRequest, onEvent: @escaping @Sendable (StreamEvent) -> Void) -> any StreamHandle
}

/// Why a request got no (complete) response.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The server could not be reached (refused, DNS, TLS handshake).
        case connectionFailed
        /// The request took longer than its timeout.
        case timedOut
        /// The caller cancelled the request.
        case cancelled
        /// The connection broke after it was established, or another transfer failure.
        case failed
    }

    /// The category of failure.
    public var kind: Kind
    /// What went wrong, naming the request.
    public var message: String

    /// - Parameters:
    ///   - kind: the category.
    ///   - message: what went wrong, naming the URL where known.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
