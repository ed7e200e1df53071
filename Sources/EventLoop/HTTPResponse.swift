public import HTTP1

/// A complete response with a fixed-length body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ body: [UInt8], status: Int = 200, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = headers
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// An error in Google's shape: `{"error":{"code":404,"message":"…","status":"NOT_FOUND"}}`.
    public static func error(
        _ status: Int, _ message: String, canonicalStatus: String? = nil, headers: HTTPHeaders = HTTPHeaders()
    ) -> HTTPResponse {
        json(ErrorBody.encode(status: status, message: message, canonicalStatus: canonicalStatus), status: status, headers: headers)
    }
}
