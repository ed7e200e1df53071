package import EventLoop
package import HTTP1

/// How a route words its errors: Google's error body by default; each protocol that words them
/// otherwise declares its dialect where it lives (OFREP's, the Firebase stream's array, the
/// console's with its security fields), and its routes name it.
package struct ErrorDialect: Sendable {
    /// Tells dialects apart: the routes under one path prefix share theirs.
    let name: String
    /// The answer to `error` on the exchange's route.
    let answer: @Sendable (APIError, Exchange) -> HTTPResponse
    /// The body of an error worded before any route is known (a path no route matches, a
    /// request the HTTP server refuses) under a prefix whose routes all speak this dialect;
    /// nil for Google's, the server's own.
    let format: ErrorBodyFormat?

    package init(name: String, answer: @escaping @Sendable (APIError, Exchange) -> HTTPResponse, format: ErrorBodyFormat?) {
        self.name = name
        self.answer = answer
        self.format = format
    }

    static let google = ErrorDialect(name: "google", answer: { error, _ in error.response }, format: nil)

    /// Google's body wrapped in an array: the Firebase stream's errors (spec §1.4).
    static let googleStream = ErrorDialect(name: "googleStream", answer: { error, _ in error.streamResponse }, format: nil)
}
