import HTTP1

/// An error that carries its own answer, worded in its protocol (OFREP's): the router sends
/// it as it is, where an `APIError` is worded in the route's dialect.
protocol AnsweringError: Error {
    var response: HTTPResponse { get }
}
