/// A request the parser refuses. The connection answers with `status` and closes: after a
/// framing error nothing that follows on the connection can be trusted.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 400, 411, 413, 414, 431, 501 or 505.
    public let status: Int
    /// A precise, client-facing explanation.
    public let reason: String

    public init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    public var description: String { "\(status): \(reason)" }

    static func bad(_ reason: String) -> HTTPParseError { HTTPParseError(status: 400, reason: reason) }
}
