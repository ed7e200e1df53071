import ConfigCore
import ConfigStore
package import HTTP1

extension HTTPResponse {
    /// A template (or what describes one) with the ETag a later `If-Match` names.
    package static func template(_ body: [UInt8], etag: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: etag)
        return .json(body, headers: headers)
    }

    /// The answer to a commit of a version: the version as it now serves, or a 500 when the
    /// stored version cannot be compiled (logged where it was compiled).
    package static func served(_ template: ActiveTemplate?) -> HTTPResponse {
        guard let template else { return APIError(500, "The version was stored but cannot be served.").response }
        return .template(template.rendered, etag: template.etag)
    }

    /// `{"canaryVersion":"C","stableVersion":"N","percent":5,"startTime":…,"updateTime":…,
    /// "updateUser":{"email":…},"promoteTime":…}` with the canary version's ETag.
    package static func canaryStatus(_ canary: CanaryServing, stableVersion: Int64) -> HTTPResponse {
        .template(Array(TemplateJSON.encode(CanaryStatus(canary, stableVersion: stableVersion))), etag: canary.template.etag)
    }

    private struct CanaryStatus: Encodable {
        let canaryVersion: String
        let stableVersion: String
        let percent: Double
        let startTime: Timestamp
        let updateTime: Timestamp
        let updateUser: TemplateUser?
        let promoteTime: Timestamp?

        init(_ canary: CanaryServing, stableVersion: Int64) {
            canaryVersion = "\(canary.version)"
            self.stableVersion = "\(stableVersion)"
            percent = Double(canary.stored.microPercent) / 1_000_000
            startTime = Timestamp(canary.stored.startTime)
            updateTime = Timestamp(canary.stored.updateTime)
            updateUser = canary.stored.updateUser.map { TemplateUser(email: UpdateUserEmail.address(forTokenName: $0)) }
            promoteTime = canary.stored.promoteAt.map(Timestamp.init)
        }
    }
}
