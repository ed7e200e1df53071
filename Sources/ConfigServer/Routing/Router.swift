import CLinuxIO
import ConfigCore
import ConfigStore
import Dispatch
import EventLoop
import HTTP1
import Logging

/// Maps each request's `Route` to its endpoint, after the checks the route needs (the method,
/// admin credentials or a client API key, a project and namespace that exist), once what it
/// reads is current (loop thread). Every answer leaves through `Exchange.respond`, which adds
/// what every answer of the route carries.
final class Router: Sendable {
    let endpoints: Endpoints
    private let access: AccessControl
    private let projects: ProjectDirectory
    private let policies: ChangePolicies
    private let readYourWrites: ReadYourWrites
    private let metrics: ServerMetrics
    let logger: Logger
    /// Keeps every change made through the management API, and every refusal for a role.
    let audit: AuditTrail
    /// Where answers that wait on the store are computed (`Exchange.answerFromStore`).
    let storeQueue: StoreQueue
    /// Whether the node is behind its store: writes are refused then (`Exchange.answerWithCommit`).
    let board: CatchUpBoard

    init(endpoints: Endpoints, access: AccessControl, projects: ProjectDirectory, policies: ChangePolicies,
         readYourWrites: ReadYourWrites, metrics: ServerMetrics, logger: Logger, storeQueue: StoreQueue, audit: AuditTrail,
         board: CatchUpBoard) {
        self.endpoints = endpoints
        self.access = access
        self.projects = projects
        self.policies = policies
        self.readYourWrites = readYourWrites
        self.metrics = metrics
        self.logger = logger
        self.storeQueue = storeQueue
        self.audit = audit
        self.board = board
    }

    func handle(_ request: HTTPRequest, context: RequestContext, responder: Responder) {
        let uri = request.head.uri
        guard let route = Route(path: uri.path) else {
            let message = "No resource at \(uri.path)."
            // Under `/ofrep/`, a provider reads errors in its own protocol's shape.
            let response = uri.path.hasPrefix("/ofrep/") ? OFREPError(404, .general, message).response : APIError.notFound(message).response
            respond(responder, route: .unknown, response, receivedNanos: context.receivedNanos)
            return
        }
        let exchange = Exchange(request: request, uri: uri, context: context, responder: responder, route: route,
                                router: self)
        if let stale = readYourWrites.staleTarget(of: exchange) {
            answerAfterReload(of: stale, exchange)
        } else {
            run(exchange)
        }
    }

    /// Reads `target` again off the loop, then dispatches (see ``ReadYourWrites``).
    func answerAfterReload(of target: ReloadTarget, _ exchange: Exchange) {
        readYourWrites.answerAfterReload(of: target, exchange) { [self] in run($0) }
    }

    /// Dispatches a request whose projects and template are current (loop thread).
    private func run(_ exchange: Exchange) {
        do {
            try dispatch(exchange)
        } catch let error as APIError {
            exchange.fail(error)
        } catch let error as OFREPError {
            exchange.respond(error.response)
        } catch {
            logger.error("request failed", metadata: ["path": "\(exchange.uri.path)", "error": "\(error)"])
            exchange.fail(APIError(500, "Internal error."))
        }
    }

    private func dispatch(_ exchange: Exchange) throws {
        let method = exchange.request.head.method
        switch exchange.route {
        case .health:
            try exchange.allow(.get, or: .head)
            endpoints.health.live(exchange)
        case .ready:
            try exchange.allow(.get, or: .head)
            try endpoints.health.ready(exchange)
        case .metrics:
            try exchange.allow(.get)
            _ = try authorize(exchange, project: nil)
            endpoints.metrics.answer(exchange)
        case .openAPI:
            try exchange.allow(.get)
            exchange.respond(.json(OpenAPIDocument.json))
        case .projects:
            try exchange.allow(.get, or: .post)
            let identity = try authorize(exchange, project: nil)
            if method == .get {
                endpoints.projects.list(exchange, visibleTo: identity)
            } else {
                try endpoints.projects.create(exchange)
            }
        case .me:
            try exchange.allow(.get)
            // Any valid credentials, even without a role: they are asked about themselves.
            endpoints.access.describe(exchange, try access.requireAdmin(exchange))
        case .audit:
            try exchange.allow(.get)
            // Without a project, only an owner reads the log.
            let project = try exchange.uri.parameter("project").map { try projects.resolve($0) }
            _ = try authorize(exchange, project: project, role: project == nil ? .owner : nil)
            try endpoints.audit.answer(exchange, project: project)
        case .principals:
            try exchange.allow(.get, or: .post)
            let identity = try authorize(exchange, project: nil)
            try method == .get ? endpoints.access.listPrincipals(exchange)
                : endpoints.access.createPrincipal(exchange, by: identity)
        case .tokens(let id):
            let identity = try authorize(exchange, project: nil)
            if let id {
                try exchange.allow(.delete)
                try endpoints.access.revokeToken(exchange, id: id, by: identity)
            } else {
                try exchange.allow(.get, or: .post)
                try method == .get ? endpoints.access.listTokens(exchange, visibleTo: identity)
                    : endpoints.access.createToken(exchange, by: identity)
            }
        case .sessions(let id):
            let identity = try authorize(exchange, project: nil)
            if let id {
                try exchange.allow(.delete)
                endpoints.signIn.endSession(exchange, id: id, by: identity)
            } else {
                try exchange.allow(.get)
                endpoints.signIn.listSessions(exchange, visibleTo: identity)
            }
        case .members(let project, let principal):
            let project = try projects.resolve(project)
            _ = try authorize(exchange, project: project)
            if let principal {
                try exchange.allow(.put, or: .delete)
                try endpoints.access.setMember(exchange, project: project, principal: principal)
            } else {
                try exchange.allow(.get)
                try endpoints.access.listMembers(exchange, project: project)
            }
        case .apiKeys(let project, let id):
            let project = try projects.resolve(project)
            _ = try authorize(exchange, project: project)
            if let id {
                try exchange.allow(.delete)
                try endpoints.projects.revokeAPIKey(exchange, project: project, id: id)
            } else {
                try exchange.allow(.get, or: .post)
                try method == .get ? endpoints.projects.listAPIKeys(exchange, project: project)
                    : endpoints.projects.createAPIKey(exchange, project: project)
            }
        case .webhooks(let project, let id, let customMethod):
            let project = try projects.resolve(project)
            _ = try authorize(exchange, project: project)
            try endpoints.webhooks.answer(exchange, project: project, id: id, method: customMethod)
        case .webhookDeliveries(let project, let id, let delivery, let customMethod):
            let project = try projects.resolve(project)
            _ = try authorize(exchange, project: project)
            try endpoints.webhooks.answerDeliveries(exchange, project: project, id: id, delivery: delivery, method: customMethod)
        case .template(let project, let namespace, let customMethod):
            let project = try projects.resolve(project)
            let namespace = try TemplateNamespace.named(namespace)
            try dispatchTemplate(exchange, project: project, namespace: namespace, customMethod: customMethod)
        case .serverTemplate(let project):
            try exchange.allow(.get)
            let project = try projects.resolve(project)
            _ = try authorize(exchange, project: project)
            try endpoints.versions.serverTemplate(exchange, project: project)
        case .fetch(let project, let namespace):
            if method == .options { return exchange.respond(CORS.preflight()) }
            try exchange.allow(.post)
            let project = try projects.resolve(project)
            let namespace = try TemplateNamespace.named(namespace)
            try access.requireClientKey(exchange, project: project)
            try endpoints.fetch.answer(exchange, project: project, namespace: namespace)
        case .stream(let project, let namespace):
            if method == .options { return exchange.respond(CORS.preflight()) }
            try exchange.allow(.post)
            let project = try projects.resolve(project)
            let namespace = try TemplateNamespace.named(namespace)
            try access.requireClientKey(exchange, project: project)
            try endpoints.stream.open(exchange, key: TemplateKey(project: project.id, namespace: namespace))
        case .ofrepEvaluation(let flag):
            if method == .options { return exchange.respond(CORS.preflight()) }
            try exchange.allow(.post)
            try endpoints.ofrep.evaluate(exchange, flag: flag)
        case .ofrepEventStream:
            if method == .options { return exchange.respond(CORS.preflight()) }
            try exchange.allow(.get)
            try endpoints.ofrep.openEventStream(exchange)
        case .console(let file):
            endpoints.console.serve(exchange, file: file)
        case .signIn(let step):
            try endpoints.signIn.answer(exchange, step: step)
        case .changePolicy(let project, let namespace):
            let project = try projects.resolve(project)
            let key = TemplateKey(project: project.id, namespace: try TemplateNamespace.named(namespace))
            try exchange.allow(.get, or: .put)
            _ = try authorize(exchange, project: project)
            if method == .get { endpoints.changes.policy(exchange, key: key) } else { try endpoints.changes.setPolicy(exchange, key: key) }
        case .changeRequests(let project, let namespace, let id, let step):
            let project = try projects.resolve(project)
            let key = TemplateKey(project: project.id, namespace: try TemplateNamespace.named(namespace))
            try dispatchChangeRequest(exchange, project: project, key: key, id: id, step: step)
        }
    }

    /// The admin behind the request, holding the role `RoutePermissions` names for the call
    /// on `project` (the server's role for calls beyond one project).
    /// A refusal for a missing role is kept in the audit log.
    /// - Parameter role: what the call needs instead of the table's role.
    private func authorize(_ exchange: Exchange, project: StoredProject?, role: Role? = nil) throws -> AccessControl.AdminIdentity {
        let method = exchange.request.head.method
        let validateOnly = TemplateAdminEndpoint.isValidateOnly(exchange)
        let needed = role ?? RoutePermissions.role(for: exchange.route, method: method, validateOnly: validateOnly) ?? .owner
        do {
            let identity = try access.require(needed, on: project, exchange)
            if let session = identity.sessionID { endpoints.signIn.sessions.noteUse(of: session) }
            return identity
        } catch let refusal as RoleRefusal {
            audit.refused(exchange, actor: refusal.identity, project: project)
            throw refusal.error
        }
    }

    /// `…/changeRequests[/{id}[:step]]`: each needs the role `RoutePermissions` names.
    private func dispatchChangeRequest(_ exchange: Exchange, project: StoredProject, key: TemplateKey, id: String?,
                                       step: String?) throws {
        let changes = endpoints.changes
        guard let id else {
            try exchange.allow(.get, or: .post)
            let identity = try authorize(exchange, project: project)
            return exchange.request.head.method == .get ? try changes.list(exchange, key: key)
                : try changes.create(exchange, project: project, key: key, identity: identity)
        }
        guard let number = Int64(id), number > 0 else { throw APIError.notFound("No change request '\(id)'.") }
        guard let step else {
            try exchange.allow(.get, or: .patch)
            let identity = try authorize(exchange, project: project)
            return exchange.request.head.method == .get ? changes.get(exchange, key: key, id: number)
                : try changes.edit(exchange, project: project, key: key, id: number, identity: identity)
        }
        guard let known = ChangeStep(rawValue: step) else { throw APIError.notFound("Unknown step 'changeRequests/\(id):\(step)'.") }
        try exchange.allow(.post)
        let identity = try authorize(exchange, project: project)
        try changes.step(exchange, project: project, key: key, id: number, step: known, identity: identity)
    }

    /// Where the template's policy requires approvals, a direct publish, rollback or canary step
    /// is refused (Firebase's tools never make a change request by surprise), unless an admin
    /// bypasses in an emergency with `?bypassApproval=true`, which is audited.
    private func requireDirectChange(_ exchange: Exchange, key: TemplateKey, identity: AccessControl.AdminIdentity) throws {
        let policy = policies.policy(key)
        guard policy.requiresApproval else { return }
        guard exchange.uri.parameter("bypassApproval") == "true" else {
            throw APIError(403, "[APPROVAL_REQUIRED]: the \(key.namespace.rawValue) template of project '\(key.project)' changes "
                + "only through change requests with \(policy.requiredApprovals) approval(s): propose one (POST …/namespaces/"
                + "\(key.namespace.rawValue)/changeRequests, rcctl changes propose, or the console). An admin may bypass in an "
                + "emergency with ?bypassApproval=true (audited).", canonicalStatus: "PERMISSION_DENIED")
        }
        guard identity.role(on: key.project).map({ $0 >= .admin }) == true else {
            throw APIError(403, "Only an admin of project '\(key.project)' may bypass the approvals.")
        }
        audit.bypassed(exchange, actor: identity, key: key)
    }

    /// `…/remoteConfig[:method]`: each needs the role `RoutePermissions` names.
    private func dispatchTemplate(_ exchange: Exchange, project: StoredProject, namespace: TemplateNamespace,
                                  customMethod: String?) throws {
        let key = TemplateKey(project: project.id, namespace: namespace)
        let isGet = exchange.request.head.method == .get
        let publishes = customMethod == nil && !isGet && !TemplateAdminEndpoint.isValidateOnly(exchange)
        // Editors publish directly where the policy lets them (and no approval is required).
        let policy = policies.policy(key)
        let editorsPublish = publishes && policy.editorsMayPublish && !policy.requiresApproval
        let identity = try authorize(exchange, project: project, role: editorsPublish ? .editor : nil)
        let changes = customMethod.flatMap(TemplateMethod.init(rawValue:)).map { [.rollback, .promote, .abort].contains($0)
            || ($0 == .canary && !isGet) } ?? publishes
        if changes { try requireDirectChange(exchange, key: key, identity: identity) }
        guard let customMethod else {
            try exchange.allow(.get, or: .put)
            if isGet {
                try endpoints.templates.get(exchange, project: project, key: key)
            } else {
                try endpoints.templates.publish(exchange, project: project, key: key, identity: identity)
            }
            return
        }
        guard let method = TemplateMethod(rawValue: customMethod) else {
            throw APIError.notFound("Unknown method 'remoteConfig:\(customMethod)'.")
        }
        switch method {
        case .listVersions:
            try exchange.allow(.get)
            try endpoints.versions.list(exchange, key: key)
        case .rollback:
            try exchange.allow(.post)
            try endpoints.versions.rollback(exchange, project: project, key: key, identity: identity)
        case .diff:
            try exchange.allow(.get)
            try endpoints.versions.diff(exchange, project: project, key: key)
        case .evaluate:
            try exchange.allow(.post)
            try endpoints.versions.evaluate(exchange, project: project, key: key)
        case .adoption:
            try exchange.allow(.get)
            endpoints.adoption.answer(exchange, key: key)
        case .downloadDefaults:
            try exchange.allow(.get)
            try endpoints.versions.downloadDefaults(exchange, key: key)
        case .canary:
            try exchange.allow(.get, or: .post)
            if isGet {
                try endpoints.canaries.status(exchange, project: project, key: key)
            } else {
                try endpoints.canaries.grow(exchange, project: project, key: key, identity: identity)
            }
        case .promote, .abort:
            try exchange.allow(.post)
            try endpoints.canaries.end(exchange, project: project, key: key, identity: identity,
                                       promote: method == .promote)
        }
    }

    /// A stream's answer started (its time is that of the whole stream, not recorded).
    func recordStreamStarted(route: RouteLabel) {
        metrics.recordRequest(route: route, status: 200)
    }

    /// Answers and records the answer's route, status and time since the request arrived.
    func respond(_ responder: Responder, route: RouteLabel, _ response: HTTPResponse, receivedNanos: Int64) {
        let seconds = Double(rcs_monotonic_nanos() - receivedNanos) / 1e9
        metrics.recordRequest(route: route, status: response.status, seconds: seconds)
        responder.respond(response)
    }
}
