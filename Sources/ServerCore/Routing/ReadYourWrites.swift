import ConfigCore
import ConfigStore
import EventLoop
import HTTP1
package import Logging

/// Read-your-writes across workers (docs/consistency.md): a request is answered only once what
/// it reads — the projects and keys, for admin calls the access records and the caller's console
/// session, and its template — is as new as every change any worker acknowledged. Each request
/// waits only on the scopes its route reads: an SDK's fetch never waits on a change of access.
package struct ReadYourWrites: Sendable {
    let controlPlane: ControlPlane
    let counters: ChangeCounters
    let access: AccessControl
    let sessions: ConsoleSessions
    let projects: ProjectDirectory
    let templates: TemplateRegistry
    let reloads: ReloadGate
    let updates: TemplateUpdates
    let logger: Logger

    package init(controlPlane: ControlPlane, counters: ChangeCounters, access: AccessControl, sessions: ConsoleSessions,
                 projects: ProjectDirectory, templates: TemplateRegistry, reloads: ReloadGate, updates: TemplateUpdates,
                 logger: Logger) {
        self.controlPlane = controlPlane
        self.counters = counters
        self.access = access
        self.sessions = sessions
        self.projects = projects
        self.templates = templates
        self.reloads = reloads
        self.updates = updates
        self.logger = logger
    }

    /// What must be read again before `exchange` is answered, other than what it read already
    /// (`read`): what its route's declaration says it reads (`RouteReads`). Nil on the fast
    /// path, which for a fetch costs two atomic loads (the template is checked in the lookup
    /// that finds it); a route that reads neither plane (health, the console's files) waits for
    /// nothing.
    func staleTarget(of exchange: Exchange, read: Set<ReloadTarget> = []) -> ReloadTarget? {
        guard let plane = exchange.route.declaration.reads.plane else { return nil }
        if !controlPlane.isCurrent(.projects), !read.contains(.projects) { return .projects }
        switch plane {
        case .data:
            // A client key needs no access record; an admin token in its place does.
            if !controlPlane.isCurrent(.access), !read.contains(.access),
               exchange.request.head.headers["Authorization"] != nil { return .access }
        case .control:
            if !controlPlane.isCurrent(.access), !read.contains(.access) { return .access }
            if let id = sessionID(exchange), !read.contains(.session(id)),
               !access.sessions.isCurrent(id, accessCounter: counters.value(of: .access), now: access.clock.now) {
                return .session(id)
            }
        }
        guard let key = templateKey(exchange), !templates.isCurrent(key), !read.contains(.template(key)) else { return nil }
        return .template(key)
    }

    /// Reloads `target` off the loop, then what else is stale, then answers with `run`. A request
    /// waits for one read of each thing it reads, all within its deadline
    /// (`store.requestTimeoutSeconds` from its arrival): what was acknowledged before it arrived
    /// is then in memory, and a change acknowledged while it waited does not make it wait
    /// again. When the store cannot be read in time, it is answered from memory.
    func answerAfterReload(of target: ReloadTarget, _ exchange: Exchange, read: Set<ReloadTarget> = [],
                           run: @escaping @Sendable (Exchange) -> Void) {
        reloads.afterReload(of: target, notAfter: exchange.deadline, by: { [self] in reload(target) }) { [self] reloaded in
            var next = exchange
            guard reloaded else {
                next.storeUnreadable = true
                return run(next)
            }
            if case .template = target { next.reloaded = true }
            let done = read.union([target])
            if let stale = staleTarget(of: next, read: done) {
                answerAfterReload(of: stale, next, read: done, run: run)
            } else {
                run(next)
            }
        }
    }

    private func reload(_ target: ReloadTarget) -> Bool {
        switch target {
        case .template(let key):
            return updates.reload(key)
        case .projects, .access, .session:
            do {
                switch target {
                case .projects: try controlPlane.reload(.projects)
                case .access: try controlPlane.reload(.access)
                case .session(let id): try sessions.lookUp(id)
                case .template: break
                }
                return true
            } catch {
                logger.error("cannot read the control plane", metadata: ["error": "\(error)"])
                return false
            }
        }
    }

    /// The console session a request presents, when it presents no bearer token.
    private func sessionID(_ exchange: Exchange) -> String? {
        let headers = exchange.request.head.headers
        guard headers["Authorization"] == nil, let secret = ConsoleSession.secret(in: headers) else { return nil }
        return ConsoleSession.id(inSecret: secret)
    }

    /// The template a route reads, if its project and namespace exist. The fetch checks its own
    /// (in one lookup with the template it serves).
    private func templateKey(_ exchange: Exchange) -> TemplateKey? {
        guard exchange.route.declaration.reads.template, let project = exchange.route.projectIndex.map(exchange.parameter(at:)),
              let id = projects.project(project)?.id,
              let namespace = exchange.namespace else { return nil }
        return TemplateKey(project: id, namespace: namespace)
    }
}
