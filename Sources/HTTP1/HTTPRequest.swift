/// A request line and its header fields.
public struct HTTPRequestHead: Sendable, Equatable {
    public var method: HTTPMethod
    /// The request target as sent (origin-form `/path?query`, or absolute-form).
    public var target: String
    /// `1` for HTTP/1.1, `0` for HTTP/1.0.
    public var minorVersion: Int
    public var headers: HTTPHeaders
    /// Whether the connection stays open after the response (RFC 9112 §9.3).
    public var keepAlive: Bool
    /// The client sent `Expect: 100-continue` and waits before sending the body.
    public var expectsContinue: Bool

    public init(method: HTTPMethod, target: String, minorVersion: Int = 1, headers: HTTPHeaders = HTTPHeaders(),
                keepAlive: Bool = true, expectsContinue: Bool = false) {
        self.method = method
        self.target = target
        self.minorVersion = minorVersion
        self.headers = headers
        self.keepAlive = keepAlive
        self.expectsContinue = expectsContinue
    }

    /// The target split into its percent-decoded path and query parameters.
    public var uri: RequestURI { RequestURI(target: target) }
}

/// A complete request: head and decoded body.
public struct HTTPRequest: Sendable, Equatable {
    public var head: HTTPRequestHead
    public var body: [UInt8]

    public init(head: HTTPRequestHead, body: [UInt8] = []) {
        self.head = head
        self.body = body
    }
}

/// What the parser produces.
public enum HTTPParserEvent: Sendable, Equatable {
    /// The head of a request whose body has not fully arrived and that sent
    /// `Expect: 100-continue`: the connection may now send `100 Continue`.
    case head(HTTPRequestHead)
    /// A whole request.
    case request(HTTPRequest)
}
