import ConfigCore
import ConfigStore
import Dispatch
import EventLoop
import Foundation
import HTTP1
import Logging

/// Appends an audit entry for every call of the management API that changes something, and for
/// every refusal for a missing role (docs/access.md, "Audit log"). `Exchange.respond` hands it
/// each answer, the router each refusal; an answer computed on the store queue is recorded there
/// before it is sent, so the entry is in the log once the caller has the answer.
final class AuditTrail: Sendable {
    private let store: any ConfigDatabase
    private let access: AccessControl
    private let projects: ProjectDirectory
    private let storeQueue: StoreQueue
    private let logger: Logger
    private let clock: any WallClock

    init(store: any ConfigDatabase, access: AccessControl, projects: ProjectDirectory, storeQueue: StoreQueue, clock: any WallClock,
         logger: Logger) {
        self.store = store
        self.access = access
        self.projects = projects
        self.storeQueue = storeQueue
        self.clock = clock
        self.logger = logger
    }

    /// Records `response` to `exchange` if the log keeps such a call.
    func record(_ exchange: Exchange, _ response: HTTPResponse) {
        // A refusal (401, 403) changed nothing: one for a missing role comes through `refused`.
        guard response.status != 401, response.status != 403, let action = Self.action(exchange), !Self.isRead(action),
              let actor = access.identity(presentedIn: exchange.request.head.headers)
        else { return }
        var entry = Self.entry(exchange, actor: actor, action: action,
                               outcome: (200..<300).contains(response.status) ? "ok" : "failed \(response.status)")
        (entry.project, entry.namespace, entry.target) = target(exchange, response)
        if entry.outcome == "ok", let etag = response.headers["ETag"], Self.makesAVersion(action) {
            entry.versionNumber = TemplateETag(etag).map(\.versionNumber)
        }
        keep(entry, exchange)
    }

    /// Records that `actor` was refused `exchange`'s call for a missing role (loop thread).
    func refused(_ exchange: Exchange, actor: AccessControl.AdminIdentity, project: StoredProject?) {
        guard let action = Self.action(exchange) else { return }
        var entry = Self.entry(exchange, actor: actor, action: action, outcome: "denied")
        (entry.project, entry.namespace, entry.target) = target(exchange, nil)
        entry.project = project?.id ?? entry.project
        keep(entry, exchange)
    }

    /// Records that `actor` bypassed the approvals `key` requires (`approval.bypass`), before the
    /// change it lets through.
    func bypassed(_ exchange: Exchange, actor: AccessControl.AdminIdentity, key: TemplateKey, changeRequest: Int64? = nil) {
        var entry = Self.entry(exchange, actor: actor, action: "approval.bypass", outcome: "ok")
        (entry.project, entry.namespace, entry.target) = (key.project, key.namespace.rawValue, changeRequest.map(String.init))
        keep(entry, exchange)
    }

    /// Records what the schedule did with a change request (`schedule.apply`), as the one who
    /// scheduled it (a store lane).
    func scheduled(_ request: StoredChangeRequest, actor: ChangeRequest.Step, outcome: String, version: Int64?) {
        append(AuditEntry(
            time: clock.now, actorID: actor.principal, actorName: actor.name, origin: "SCHEDULE", requestID: "schedule-\(request.id)",
            clientAddress: "-", action: "schedule.apply", project: request.project, namespace: request.namespace.rawValue,
            target: String(request.id), versionNumber: version, outcome: outcome))
    }

    /// Records a sign-in, a failed one, or a sign-out (any thread).
    /// - Parameters:
    ///   - actor: the principal's id and name; for a failure before the provider said who, what is known.
    ///   - target: the session's id.
    func signIn(_ exchange: Exchange, action: String, actor: (id: String, name: String), target: String?, outcome: String) {
        var entry = Self.entry(exchange, actor: AccessControl.AdminIdentity(name: actor.name, id: actor.id), action: action,
                               outcome: outcome)
        entry.target = target
        keep(entry, exchange)
    }

    private static func entry(_ exchange: Exchange, actor: AccessControl.AdminIdentity, action: String, outcome: String) -> AuditEntry {
        let headers = exchange.request.head.headers
        // Timed as appended (`append`).
        return AuditEntry(
            time: .distantPast, actorID: actor.id, actorName: actor.name, origin: origin(headers), requestID: exchange.context.requestID,
            clientAddress: exchange.context.client(forwardedFor: headers.values("X-Forwarded-For")), action: action,
            outcome: outcome)
    }

    /// On the store queue: there already for an answer computed there (it is kept before it is
    /// sent), else queued.
    private func keep(_ entry: AuditEntry, _ exchange: Exchange) {
        if exchange.context.loop.inLoop {
            storeQueue.async { [self] in append(entry) }
        } else {
            append(entry)
        }
    }

    /// Appends `entry` with the diff of the version it made (blocking: store queue).
    private func append(_ entry: AuditEntry) {
        var entry = entry
        // Timed as appended, not as decided: a refusal queued behind a publish would otherwise
        // land after entries timed later, and an export of a window already past would miss it.
        // (The store also keeps each time no earlier than the one before, across workers.)
        entry.time = clock.now
        if let version = entry.versionNumber, version > 1, let project = entry.project,
           let namespace = entry.namespace.flatMap(TemplateNamespace.init(rawValue:)) {
            let key = TemplateKey(project: project, namespace: namespace)
            entry.diff = VersionDiff.read(from: version - 1, to: version, of: key, in: store.templates).map { Array(TemplateJSON.encode($0)) }
        }
        do {
            try store.audit.append(entry)
        } catch {
            logger.error("cannot append to the audit log", metadata: ["action": "\(entry.action)", "error": "\(error)"])
        }
    }

    /// What the call does, as the log names it; nil for calls it does not keep.
    static func action(_ exchange: Exchange) -> String? {
        let method = exchange.request.head.method
        switch exchange.route {
        case .template(_, _, nil) where method == .put:
            if TemplateAdminEndpoint.isValidateOnly(exchange) { return nil }
            return exchange.uri.parameter("canaryPercent") == nil ? "template.publish" : "canary.start"
        case .template(_, _, let custom?):
            switch TemplateMethod(rawValue: custom) {
            case .rollback?: return "template.rollback"
            case .canary? where method == .post: return "canary.share"
            case .promote?: return "canary.promote"
            case .abort?: return "canary.abort"
            default: return "template.read"
            }
        case .template: return "template.read"
        case .projects: return method == .post ? "project.create" : "project.list"
        case .apiKeys(_, let id): return id != nil ? "apiKey.revoke" : method == .post ? "apiKey.create" : "apiKey.list"
        case .principals: return method == .post ? "principal.create" : "principal.list"
        case .members(_, let principal): return principal == nil ? "member.list" : method == .delete ? "member.remove" : "member.set"
        case .tokens(let id): return id != nil ? "token.revoke" : method == .post ? "token.create" : "token.list"
        case .sessions(let id): return id != nil ? "session.end" : "session.list"
        case .webhooks(_, nil, _): return method == .post ? "webhook.create" : "webhook.list"
        case .webhooks(_, _, "rotateSecret"?): return "webhook.rotate"
        case .webhooks(_, _, "test"?): return "webhook.test"
        case .webhooks: return method == .patch ? "webhook.update" : method == .delete ? "webhook.delete" : "webhook.list"
        case .webhookDeliveries(_, _, let delivery, _): return delivery == nil ? "webhookDelivery.list" : "webhook.redeliver"
        case .serverTemplate: return "template.read"
        case .changePolicy: return method == .get ? "changePolicy.read" : "changePolicy.set"
        case .changeRequests(_, _, nil, _): return method == .post ? "changeRequest.create" : "changeRequest.list"
        case .changeRequests(_, _, _, nil): return method == .patch ? "changeRequest.edit" : "changeRequest.read"
        case .changeRequests(_, _, _, let step?): return "changeRequest." + (ChangeStep(rawValue: step)?.rawValue ?? "read")
        case .metrics: return "metrics.read"
        // Sign-in and sign-out are kept by the sign-in endpoint (`signIn(_:…)`), which knows who.
        case .health, .ready, .openAPI, .console, .fetch, .stream, .ofrepEvaluation, .ofrepEventStream, .audit, .me, .signIn:
            return nil
        }
    }

    /// Reads are kept only when refused.
    private static func isRead(_ action: String) -> Bool {
        action.hasSuffix(".read") || action.hasSuffix(".list")
    }

    private static func makesAVersion(_ action: String) -> Bool {
        ["template.publish", "template.rollback", "canary.start", "canary.promote", "canary.abort", "changeRequest.apply"]
            .contains(action)
    }

    /// The project (its id), namespace and other target the call names.
    /// - Parameter response: the answer, for ids it carries; nil for a refused call.
    private func target(_ exchange: Exchange, _ response: HTTPResponse?) -> (String?, String?, String?) {
        func id(_ idOrNumber: String) -> String { projects.project(idOrNumber)?.id ?? idOrNumber }
        switch exchange.route {
        case .template(let project, let namespace, _): return (id(project), namespace, nil)
        case .serverTemplate(let project): return (id(project), TemplateNamespace.server.rawValue, nil)
        case .apiKeys(let project, let key?): return (id(project), nil, key)
        case .apiKeys(let project, nil): return (id(project), nil, Self.member("name", of: exchange.request.body))
        case .members(let project, let principal): return (id(project), nil, principal)
        case .changePolicy(let project, let namespace): return (id(project), namespace, nil)
        case .changeRequests(let project, let namespace, let request, _):
            return (id(project), namespace, request ?? response.flatMap { Self.member("id", of: $0.body) })
        // The endpoint's id; for a create, from the answer (which also holds the secret, never kept).
        case .webhooks(let project, let hook?, _): return (id(project), nil, hook)
        case .webhooks(let project, nil, _): return (id(project), nil, response.flatMap { Self.member("id", of: $0.body) })
        case .webhookDeliveries(let project, let hook, let delivery, _): return (id(project), nil, delivery.map { "\(hook)/\($0)" } ?? hook)
        case .tokens(let token?), .sessions(let token?): return (nil, nil, token)
        case .tokens(nil), .principals: return (nil, nil, response.flatMap { Self.member("id", of: $0.body) })
        case .projects: return (response.flatMap { Self.member("projectId", of: $0.body) }, nil, nil)
        default: return (nil, nil, nil)
        }
    }

    /// A text member of a small JSON object, if there is one.
    private static func member(_ name: String, of body: [UInt8]) -> String? {
        guard !body.isEmpty, let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return object[name] as? String
    }

    /// `CLI` for rcctl, `CONSOLE` for the web console (they say so in `X-RCS-Origin`), else `API`.
    private static func origin(_ headers: HTTPHeaders) -> String {
        switch headers["X-RCS-Origin"]?.uppercased() {
        case "CLI"?: "CLI"
        case "CONSOLE"?: "CONSOLE"
        default: "API"
        }
    }
}
