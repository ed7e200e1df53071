/// A complete response with a fixed-length body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    /// Fields already encoded (`Name: value` and CRLF each), written after `headers`: for
    /// responses sent many times with the same fields, such as cached fetch answers.
    public var encodedFields: [UInt8]
    /// The first bytes of the body, made for this response, before `body`: a large body
    /// shared by many responses is then sent as it is instead of copied into each.
    public var bodyPrefix: [UInt8]
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), encodedFields: [UInt8] = [], bodyPrefix: [UInt8] = [],
                body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.encodedFields = encodedFields
        self.bodyPrefix = bodyPrefix
        self.body = body
    }

    /// Whether a response with `status` has no content and so no `Content-Length` (RFC 9110
    /// §8.6): 1xx and 204 never; a 304 only the length its 200 would have had, which the server
    /// does not know when it answers 304, and a cache might freshen its stored answer with 0.
    public static func hasNoContent(status: Int) -> Bool {
        status == 304 || status == 204 || (100 ..< 200).contains(status)
    }

    /// The `Content-Type` of JSON responses.
    public static let jsonContentType = "application/json; charset=utf-8"

    /// A JSON response.
    public static func json(_ body: [UInt8], status: Int = 200, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = headers
        headers.add(name: "Content-Type", value: jsonContentType)
        return HTTPResponse(status: status, headers: headers, body: body)
    }
}
