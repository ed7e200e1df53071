/// A request method: any token (RFC 9110 §9); the common ones have names.
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    public static let connect = HTTPMethod(rawValue: "CONNECT")

    public var description: String { rawValue }

    /// The method named by `token` (its bytes, as a request line holds them): a common method
    /// is recognized without decoding a string; any other is decoded as before.
    init(token: UnsafeBufferPointer<UInt8>) {
        switch token.count {
        case 3 where Self.equal(token, "GET"): self = .get
        case 3 where Self.equal(token, "PUT"): self = .put
        case 4 where Self.equal(token, "POST"): self = .post
        case 4 where Self.equal(token, "HEAD"): self = .head
        case 5 where Self.equal(token, "PATCH"): self = .patch
        case 6 where Self.equal(token, "DELETE"): self = .delete
        case 7 where Self.equal(token, "OPTIONS"): self = .options
        case 7 where Self.equal(token, "CONNECT"): self = .connect
        default: self.init(rawValue: String(decoding: token, as: UTF8.self))
        }
    }

    /// `token` and `name` (of the same length) hold the same bytes.
    private static func equal(_ token: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        name.withUTF8Buffer { name in
            for index in name.indices where token[index] != name[index] { return false }
            return true
        }
    }
}
