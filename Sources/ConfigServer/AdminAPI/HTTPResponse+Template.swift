import HTTP1

extension HTTPResponse {
    /// A template (or what describes one) with the ETag a later `If-Match` names.
    static func template(_ body: [UInt8], etag: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: etag)
        return .json(body, headers: headers)
    }
}
