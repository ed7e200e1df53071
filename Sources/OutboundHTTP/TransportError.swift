/// Why a request got no (complete) response.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The server could not be reached (refused, DNS, TLS handshake, a scheme other than
        /// `http` and `https`).
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
    /// What had arrived when the transfer failed (the status, the headers, the body so far), or
    /// `nil` if no status line had.
    public var partialResponse: HTTPResponse?

    /// - Parameters:
    ///   - kind: the category.
    ///   - message: what went wrong, naming the URL where known.
    ///   - partialResponse: what had arrived before the failure.
    public init(_ kind: Kind, _ message: String, partialResponse: HTTPResponse? = nil) {
        self.kind = kind
        self.message = message
        self.partialResponse = partialResponse
    }

    public var description: String { message }
}
