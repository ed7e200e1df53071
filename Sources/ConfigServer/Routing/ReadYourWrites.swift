import ConfigCore
import ConfigStore
import EventLoop
import Logging

/// Read-your-writes across workers (docs/consistency.md): a request is answered only once the
/// projects and the template it reads are as new as every change any worker acknowledged.
struct ReadYourWrites: Sendable {
    let projectLoader: ProjectLoader
    let projects: ProjectDirectory
    let templates: TemplateRegistry
    let reloads: ReloadGate
    let updates: TemplateUpdates
    let logger: Logger

    /// What must be read again before `route` is answered; nil on the fast path, which costs
    /// three atomic loads, and a lookup for routes other than the fetch (which checks its
    /// template in the lookup that finds it). While the node's listener is absent, everything
    /// a request reads is read once after it arrived.
    func staleTarget(of route: Route) -> ReloadTarget? {
        if !projectLoader.isCurrent { return .projects }
        guard let key = templateKey(route), !templates.isCurrent(key) else { return nil }
        return .template(key)
    }

    /// Reloads `target` off the loop, then answers with `run`. A request waits for one read of
    /// each thing it reads (the projects, then its template), all within its deadline
    /// (`store.requestTimeoutSeconds` from its arrival): what was acknowledged before it arrived
    /// is then in memory, and a change acknowledged while it waited does not make it wait
    /// again. When the store cannot be read in time, it is answered from memory.
    func answerAfterReload(of target: ReloadTarget, _ exchange: Exchange,
                           run: @escaping @Sendable (Exchange) -> Void) {
        reloads.afterReload(of: target, notAfter: exchange.deadline, by: { [self] in reload(target) }) { [self] reloaded in
            var next = exchange
            if !reloaded { next.storeUnreadable = true }
            switch target {
            case .projects:
                // The template next (the fetch reads its own), unless the store is unreadable.
                if reloaded, let key = templateKey(exchange.route), !templates.isCurrent(key) {
                    answerAfterReload(of: .template(key), next, run: run)
                } else {
                    run(next)
                }
            case .template:
                next.reloaded = true
                run(next)
            }
        }
    }

    private func reload(_ target: ReloadTarget) -> Bool {
        switch target {
        case .template(let key):
            return updates.reload(key)
        case .projects:
            do {
                try projectLoader.reload()
                return true
            } catch {
                logger.error("cannot reload projects", metadata: ["error": "\(error)"])
                return false
            }
        }
    }

    /// The template a route reads, if its project and namespace exist. The fetch checks its own
    /// (in one lookup with the template it serves).
    private func templateKey(_ route: Route) -> TemplateKey? {
        let project: String, namespace: String
        switch route {
        case .template(let name, let space, _), .stream(let name, let space), .changeRequests(let name, let space, _, _):
            // A change request is based on the active version: this worker's must be current.
            (project, namespace) = (name, space)
        case .serverTemplate(let name):
            (project, namespace) = (name, TemplateNamespace.server.rawValue)
        default:
            return nil
        }
        guard let id = projects.project(project)?.id, let namespace = TemplateNamespace(rawValue: namespace) else { return nil }
        return TemplateKey(project: id, namespace: namespace)
    }
}
