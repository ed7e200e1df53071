public import Foundation

/// One HTTP request to send.
public struct HTTPRequest: Sendable {
    /// The request method.
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case delete = "DELETE"
        case patch = "PATCH"
    }

    /// An address to connect to in place of resolving the URL's host: for a caller that checked
    /// where a name points and must connect to the very address it checked (a name that resolves
    /// elsewhere the second time gains nothing).
    public struct PinnedAddress: Sendable, Equatable {
        /// The host name as the URL names it; an address literal needs no pin.
        public var host: String
        /// The port the URL names, or its scheme's default.
        public var port: Int
        /// The IPv4 or IPv6 address to connect to, as text, without brackets.
        public var address: String

        /// - Parameters:
        ///   - host: the URL's host name.
        ///   - port: the URL's port.
        ///   - address: the checked address to connect to.
        public init(host: String, port: Int, address: String) {
            self.host = host
            self.port = port
            self.address = address
        }

        /// The `CURLOPT_RESOLVE` entry `host:port:address`; an IPv6 address goes in brackets.
        var resolveEntry: String {
            "\(host):\(port):" + (address.contains(":") ? "[\(address)]" : address)
        }
    }

    /// The request method.
    public var method: Method
    /// The absolute URL, query included.
    public var url: String
    /// Header fields; names are sent as written, in the order of their names.
    public var headers: [String: String]
    /// The body, sent as is (`nil`: none).
    public var body: Data?
    /// Total time allowed for `send`; for streams only the connection phase is limited by it.
    public var timeout: TimeInterval
    /// Time allowed to connect; `nil`: ``timeout``, at most 30 seconds.
    public var connectTimeout: TimeInterval?
    /// Where to connect instead of resolving the URL's host (`nil`: resolve it as usual).
    public var pinnedAddress: PinnedAddress?

    /// - Parameters:
    ///   - method: the request method.
    ///   - url: the absolute URL.
    ///   - headers: header fields.
    ///   - body: the request body, sent as is.
    ///   - timeout: seconds allowed (see ``timeout``).
    ///   - connectTimeout: seconds allowed to connect (see ``connectTimeout``).
    ///   - pinnedAddress: the address to connect to (see ``pinnedAddress``).
    public init(
        method: Method, url: String, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval = 60,
        connectTimeout: TimeInterval? = nil, pinnedAddress: PinnedAddress? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.pinnedAddress = pinnedAddress
    }
}
