import ConfigCore
import ConfigStore
import EventLoop
import HTTP1

/// `POST /v1/projects/{p}/namespaces/{ns}:streamFetchInvalidations` (spec §4).
struct StreamEndpoint: Sendable {
    let projects: ProjectDirectory
    let access: AccessControl
    let realtime: RealtimeHub
    let metrics: ServerMetrics
    let maxBodyBytes: Int

    /// Holds the stream open on the real-time hub. Every error of this endpoint, an unknown
    /// project included, is wrapped in an array.
    func open(_ exchange: Exchange, project projectIDOrNumber: String, namespace namespaceName: String) throws {
        do {
            try exchange.allow(.post)
            let project = try projects.resolve(projectIDOrNumber)
            let namespace = try TemplateNamespace.named(namespaceName)
            try access.requireClientKey(exchange, project: project)
            let body = try ClientRequest.parseBody(exchange.request.body, limit: maxBodyBytes)
            // Anything but a version number counts as knowing none (spec §4.7.1): the client is
            // told the current version at once, where a 400 would stop an SDK's reconnects.
            let lastKnown = body.string("lastKnownVersionNumber").flatMap { Int64($0) }.map { max(0, $0) } ?? 0
            metrics.recordRequest(route: exchange.routeName, status: 200)
            realtime.open(exchange.responder, key: TemplateKey(project: project.id, namespace: namespace), lastKnown: lastKnown,
                          instance: body.string("appInstanceId") ?? "")
        } catch let error as APIError {
            // Errors on the stream endpoint are wrapped in an array (spec §1.4).
            var body: [UInt8] = [UInt8(ascii: "[")]
            body += ErrorBody.encode(status: error.status, message: error.message, canonicalStatus: error.canonicalStatus)
            body.append(UInt8(ascii: "]"))
            var headers = error.headers
            CORS.addFields(to: &headers)
            exchange.respond(.json(body, status: error.status, headers: headers))
        }
    }
}
