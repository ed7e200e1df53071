/// How the HTTP server writes the body of the answers it gives by itself, before any handler
/// runs: a request it cannot parse (400, 411, 413, 414, 431, 501, 505), one too slow to arrive
/// (408), a connection beyond its limit (503).
///
/// The transport speaks no API's error format; the handler names one
/// (``HTTPRequestHandler/errorBodyFormat``) so that these answers read like its own errors.
public struct ErrorBodyFormat: Sendable {
    /// The `Content-Type` of the body.
    public var contentType: String
    /// The body of an answer with `status`, explained to the client by `message`.
    public var encode: @Sendable (_ status: Int, _ message: String) -> [UInt8]
    /// Formats of the APIs that answer under a path prefix with errors of their own shape:
    /// the first whose prefix starts the request's target wins.
    public var byPathPrefix: [(prefix: String, format: ErrorBodyFormat)] = []

    /// - Parameters:
    ///   - contentType: the `Content-Type` of the body.
    ///   - encode: makes the body from the status and the explanation.
    public init(contentType: String, encode: @escaping @Sendable (_ status: Int, _ message: String) -> [UInt8]) {
        self.contentType = contentType
        self.encode = encode
    }

    /// The format for a request to `target` (nil when its request line never arrived).
    public func format(forTarget target: String?) -> ErrorBodyFormat {
        guard let target, !byPathPrefix.isEmpty else { return self }
        return byPathPrefix.first { target.hasPrefix($0.prefix) }?.format ?? self
    }

    /// The explanation as a line of plain text: the format of a handler that names none.
    public static let plainText = ErrorBodyFormat(contentType: "text/plain; charset=utf-8") { _, message in
        Array((message + "\n").utf8)
    }
}
