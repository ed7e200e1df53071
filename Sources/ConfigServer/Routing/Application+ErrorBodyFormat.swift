public import EventLoop

extension Application {
    /// Google's error body also for what the HTTP server answers by itself (a malformed or slow
    /// request, a connection beyond the limit): clients parse every error the same way.
    public var errorBodyFormat: ErrorBodyFormat { ErrorBody.format }
}
