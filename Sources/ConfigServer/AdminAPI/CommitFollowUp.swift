import ConfigCore
import ConfigStore
import Dispatch
import HTTP1
import Logging

/// What follows a commit to the store: the worker that made it serves it at once, and every
/// other worker and held stream learns of it. Runs on the store queue.
struct CommitFollowUp: Sendable {
    let store: any TemplateStore
    let templates: TemplateRegistry
    let counters: ChangeCounters
    let realtime: RealtimeHub
    let metrics: ServerMetrics
    let storeQueue: DispatchQueue
    let logger: Logger

    /// After a commit of a version (a publish, a rollback, the end of a canary): serve it here,
    /// tell held clients and other workers; the answer describes it.
    func published(_ stored: StoredVersion) -> HTTPResponse {
        let key = TemplateKey(project: stored.project, namespace: stored.namespace)
        // Before the acknowledgement: from here on, every worker reloads before it answers.
        counters.bump(key)
        metrics.recordPublish()
        let installed = templates.install(stored)
        // Runs on the serial store queue: the announcement queued behind this block starts the
        // fan-out only after the response is queued, so the publisher is not kept waiting by it.
        let version = stored.versionNumber
        storeQueue.async { [realtime] in realtime.announce(key, version: version) }
        // The answer describes this publish, even when a concurrent newer one is already served.
        let answered = installed?.versionNumber == version ? installed : templates.compile(stored)
        guard let answered else { return APIError(500, "The version was stored but cannot be served.").response }
        return .template(answered.rendered, etag: answered.etag)
    }

    /// After a canary commit (a start or a larger share): serve it here, then tell the held
    /// streams and the other workers, as `published` does for a version.
    func canaryChanged(_ version: StoredVersion?, _ canary: StoredCanary) -> CanaryServing? {
        let key = TemplateKey(project: canary.project, namespace: canary.namespace)
        // Before the acknowledgement: from here on, every worker reloads before it answers.
        counters.bump(key)
        var template = templates.canary(key).flatMap { $0.version == canary.canaryVersion ? $0.template : nil }
        if template == nil {
            do {
                if let stored = try version ?? store.version(project: key.project, namespace: key.namespace, number: canary.canaryVersion) {
                    template = templates.compile(stored)
                }
            } catch {
                logger.error("cannot read the canary version to serve it", metadata: [
                    "project": "\(key.project)", "version": "\(canary.canaryVersion)", "error": "\(error)",
                ])
            }
        }
        guard let template else { return nil }
        let serving = CanaryServing(stored: canary, template: template)
        templates.installCanary(serving)
        storeQueue.async { [realtime] in realtime.announce(key, version: canary.canaryVersion) }
        return serving
    }
}
