public import Foundation

/// A complete HTTP response.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// Header fields with lower-cased names.
    public var headers: [String: String]
    /// The body bytes, decoded from any content encoding, within the transport's limits.
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
