import HTTP1

extension HTTPResponse {
    /// A template (or what describes one) with the ETag a later `If-Match` names.
    static func template(_ body: [UInt8], etag: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: etag)
        return .json(body, headers: headers)
    }

    /// The answer to a commit of a version: the version as it now serves, or a 500 when the
    /// stored version cannot be compiled (logged where it was compiled).
    static func served(_ template: ActiveTemplate?) -> HTTPResponse {
        guard let template else { return APIError(500, "The version was stored but cannot be served.").response }
        return .template(template.rendered, etag: template.etag)
    }
}
