package import ConfigCore
package import ConfigStore
import Dispatch
import EventLoop
import Foundation
import HTTP1
package import Logging

/// Appends an audit entry for every call of the management API that changes something, and for
/// every refusal for a missing role (docs/access.md, "Audit log"), from the route's declaration
/// (`AuditRule`: the action and where its target is named) and the caller the exchange
/// carries. `Exchange.respond` hands it each answer, the request checks each refusal; an answer
/// computed on the store queue is recorded there before it is sent, so the entry is in the log
/// once the caller has the answer.
package final class AuditTrail: Sendable {
    private let store: any ConfigDatabase
    private let projects: ProjectDirectory
    private let storeQueue: StoreQueue
    private let logger: Logger
    private let clock: any WallClock
    /// Where a publish's diff finds its two versions without reading the store.
    private let recentVersions: RecentVersions

    package init(store: any ConfigDatabase, projects: ProjectDirectory, storeQueue: StoreQueue, recentVersions: RecentVersions,
                 clock: any WallClock, logger: Logger) {
        self.store = store
        self.recentVersions = recentVersions
        self.projects = projects
        self.storeQueue = storeQueue
        self.clock = clock
        self.logger = logger
    }

    /// Records `response` to `exchange` if the log keeps such a call.
    func record(_ exchange: Exchange, _ response: HTTPResponse) {
        // A refusal (401, 403) changed nothing: one for a missing role comes through `refused`.
        guard let rule = exchange.route.declaration.audit, rule.kind != .read, response.status != 401, response.status != 403,
              let action = rule.action(of: exchange), let actor = exchange.caller.identity
        else { return }
        var entry = Self.entry(exchange, actor: actor, action: action,
                               outcome: (200..<300).contains(response.status) ? "ok" : "failed \(response.status)")
        (entry.project, entry.namespace, entry.target) = names(exchange, rule, response)
        if entry.outcome == "ok", let etag = response.headers["ETag"], rule.kind == .version {
            entry.versionNumber = TemplateETag(etag).map(\.versionNumber)
        }
        keep(entry, exchange)
    }

    /// Records that `actor` was refused `exchange`'s call for a missing role (loop thread).
    func refused(_ exchange: Exchange, actor: AccessControl.AdminIdentity, project: StoredProject?) {
        guard let rule = exchange.route.declaration.audit, let action = rule.action(of: exchange) else { return }
        var entry = Self.entry(exchange, actor: actor, action: action, outcome: "denied")
        (entry.project, entry.namespace, entry.target) = names(exchange, rule, nil)
        entry.project = project?.id ?? entry.project
        keep(entry, exchange)
    }

    /// Records that `actor` bypassed the approvals `key` requires (`approval.bypass`), before the
    /// change it lets through.
    package func bypassed(_ exchange: Exchange, actor: AccessControl.AdminIdentity, key: TemplateKey, changeRequest: Int64? = nil) {
        var entry = Self.entry(exchange, actor: actor, action: "approval.bypass", outcome: "ok")
        (entry.project, entry.namespace, entry.target) = (key.project, key.namespace.rawValue, changeRequest.map(String.init))
        keep(entry, exchange)
    }

    /// Records what the schedule did with a change request (`schedule.apply`), as the one who
    /// scheduled it (a store lane).
    /// - Parameter actor: the principal's id and name.
    package func scheduled(_ request: StoredChangeRequest, actor: (id: String, name: String), outcome: String, version: Int64?) {
        append(AuditEntry(
            time: clock.now, actorID: actor.id, actorName: actor.name, origin: "SCHEDULE", requestID: "schedule-\(request.id)",
            clientAddress: "-", action: "schedule.apply", project: request.project, namespace: request.namespace.rawValue,
            target: String(request.id), versionNumber: version, outcome: outcome))
    }

    /// Records a sign-in, a failed one, or a sign-out (any thread).
    /// - Parameters:
    ///   - actor: the principal's id and name; for a failure before the provider said who, what is known.
    ///   - target: the session's id.
    package func signIn(_ exchange: Exchange, action: String, actor: (id: String, name: String), target: String?, outcome: String) {
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
            entry.diff = VersionDiff.read(from: version - 1, to: version, of: key, in: store.templates, recent: recentVersions)
                .map { Array(TemplateJSON.encode($0)) }
        }
        do {
            try store.audit.append(entry)
        } catch {
            logger.error("cannot append to the audit log", metadata: ["action": "\(entry.action)", "error": "\(error)"])
        }
    }

    /// The project (its id), namespace and target of the call, as `rule` and the route name them.
    /// - Parameter response: the answer, for ids it carries; nil for a refused call.
    private func names(_ exchange: Exchange, _ rule: AuditRule, _ response: HTTPResponse?) -> (String?, String?, String?) {
        let route = exchange.route
        // A path's project by its id, whether it named it so or by its number.
        let project = route.projectIndex.map { index in
            let named = exchange.parameter(at: index)
            return projects.project(named)?.id ?? named
        }
        return (project ?? rule.project.flatMap { Self.name($0, exchange, response) }, exchange.namespace?.rawValue,
                rule.target.flatMap { Self.name($0, exchange, response) })
    }

    private static func name(_ name: AuditRule.Name, _ exchange: Exchange, _ response: HTTPResponse?) -> String? {
        switch name {
        case .parameters(let names): names.map { exchange.pathParameter($0) ?? "" }.joined(separator: "/")
        case .requestMember(let member): Self.member(member, of: exchange.request.body)
        case .answerMember(let member): response.flatMap { Self.member(member, of: $0.body) }
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
