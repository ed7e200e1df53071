import ConfigCore
import ConfigStore
import EventLoop
import HTTP1

/// `POST /v1/projects/{p}/namespaces/{ns}:streamFetchInvalidations` (spec §4).
package struct StreamEndpoint: Sendable {
    let realtime: RealtimeHub
    let maxBodyBytes: Int

    package init(realtime: RealtimeHub, maxBodyBytes: Int) {
        self.realtime = realtime
        self.maxBodyBytes = maxBodyBytes
    }

    /// Holds the stream open on the real-time hub; the router checked the method, the project
    /// and the API key.
    func open(_ exchange: Exchange, key: TemplateKey) throws {
        let body = try ClientRequest.parseBody(exchange.request.body, limit: maxBodyBytes)
        // Anything but a version number counts as knowing none (spec §4.7.1): the client is
        // told the current version at once, where a 400 would stop an SDK's reconnects.
        let lastKnown = body.string("lastKnownVersionNumber").flatMap { Int64($0) }.map { max(0, $0) } ?? 0
        realtime.open(exchange, key: key, lastKnown: lastKnown, instance: body.string("appInstanceId") ?? "")
    }
}
