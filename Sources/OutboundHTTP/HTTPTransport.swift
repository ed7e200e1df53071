public import Foundation

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
