import CLinuxIO
import ConfigCore
import ConfigStore
import Dispatch
public import EventLoop
public import HTTP1
import Logging
import Synchronization
import Foundation

/// The remote config service of one worker process: routes requests to the admin API, fetch
/// and real-time endpoints. Runs on the worker's event loop; store writes go to one serial queue.
public final class Application: HTTPRequestHandler, Sendable {
    let configuration: ServerConfiguration
    let store: any TemplateStore
    let access: AccessControl
    let projects: ProjectDirectory
    let templates: TemplateRegistry
    /// What the worker group committed, for read-your-writes across workers.
    let counters: ChangeCounters
    /// Reads projects and keys from the store into `projects` and `access`.
    let projectLoader: ProjectLoader
    /// Reads what a request needs again when another worker changed it.
    let reloads: ReloadGate
    let validator: TemplateValidator
    let throttle: FetchThrottle
    let realtime: RealtimeHub
    let metrics: ServerMetrics
    /// Collects the other workers' numbers for `/metrics` and adoption.
    let peerGather: PeerGather
    let logger: Logger
    /// What follows a commit: serving it here, then everywhere.
    let afterCommit: CommitFollowUp
    /// Owns every SQLite write (and the reads that may wait on disk), off the loop thread.
    let storeQueue = DispatchQueue(label: "remote-config.store")
    /// Whether the store answered this worker's last poll (`/readyz`, without a store call on
    /// the loop).
    let storeHealth = StoreHealth()
    /// Canaries this worker tried to promote on schedule (`project/namespace/version`), once each.
    let promotionsTried = Mutex<Set<String>>([])

    init(configuration: ServerConfiguration, store: any TemplateStore, loop: EventLoop,
         admission: StreamAdmission, counters: ChangeCounters, peers: PeerChannel?, logger: Logger) throws {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        self.counters = counters
        access = AccessControl(adminTokens: configuration.adminTokens, apiKeyRequired: configuration.fetch.requireAPIKey)
        projects = ProjectDirectory()
        templates = TemplateRegistry(store: store, projects: projects, counters: counters, logger: logger)
        var limits = TemplateLimits.firebase
        limits.maxParameters = configuration.templates.maxParameters
        limits.maxConditions = configuration.templates.maxConditions
        validator = TemplateValidator(limits: limits)
        throttle = FetchThrottle(burst: configuration.fetch.throttleBurst, perMinute: configuration.fetch.throttlePerMinute)
        reloads = ReloadGate(loop: loop)
        metrics = ServerMetrics(worker: peers?.worker ?? 0)
        peerGather = PeerGather(channel: peers, loop: loop)
        realtime = RealtimeHub(settings: configuration.realtime, loop: loop, templates: templates,
                               admission: admission, peers: peers, metrics: metrics, logger: logger)
        projectLoader = ProjectLoader(store: store, projects: projects, access: access, counters: counters,
                                      declarations: configuration.projects)
        afterCommit = CommitFollowUp(store: store, templates: templates, counters: counters, realtime: realtime,
                                     metrics: metrics, storeQueue: storeQueue, logger: logger)
        try projectLoader.loadDeclared()
    }

    /// Reads projects and API keys from the store again (another worker may have added some).
    func reloadProjects() throws {
        try projectLoader.reload()
    }

    // MARK: Routing

    public func handle(_ request: HTTPRequest, context: RequestContext, responder: Responder) {
        let uri = request.head.uri
        guard let route = Route(path: uri.path) else {
            respond(responder, route: "unknown", APIError.notFound("No resource at \(uri.path).").response,
                    receivedNanos: context.receivedNanos)
            return
        }
        let exchange = Exchange(request: request, uri: uri, context: context, responder: responder, route: route, application: self)
        if let stale = staleTarget(of: route) {
            answerAfterReload(of: stale, exchange)
        } else {
            run(exchange)
        }
    }

    /// Dispatches a request whose projects and template are current (loop thread).
    func run(_ exchange: Exchange) {
        do {
            try dispatch(exchange)
        } catch let error as APIError {
            exchange.fail(error)
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
            exchange.respond(.json(Array("{\"status\":\"ok\"}".utf8)))
        case .ready:
            try exchange.allow(.get, or: .head)
            guard storeHealth.isAvailable else {
                throw APIError(503, "The store is unavailable: fetches and streams are served from the versions known; publishes are refused.")
            }
            exchange.respond(.json(Array("{\"status\":\"ready\"}".utf8)))
        case .metrics:
            try exchange.allow(.get)
            _ = try access.requireAdmin(exchange)
            respondWithMetrics(exchange)
        case .openAPI:
            try exchange.allow(.get)
            exchange.respond(.json(OpenAPIDocument.json))
        case .projects:
            try handleProjects(exchange)
        case .apiKeys(let project):
            try handleAPIKeys(exchange, project: try projects.resolve(project))
        case .template(let project, let namespace, let customMethod):
            let project = try projects.resolve(project)
            let namespace = try TemplateNamespace.named(namespace)
            try handleTemplate(exchange, project: project, namespace: namespace, customMethod: customMethod)
        case .serverTemplate(let project):
            try exchange.allow(.get)
            _ = try access.requireAdmin(exchange)
            try getServerTemplate(exchange, project: try projects.resolve(project))
        case .fetch(let project, let namespace):
            if method == .options { return exchange.respond(CORS.preflight()) }
            try exchange.allow(.post)
            try fetch(exchange, project: try projects.resolve(project), namespace: try TemplateNamespace.named(namespace))
        case .stream(let project, let namespace):
            if method == .options { return exchange.respond(CORS.preflight()) }
            try openStream(exchange, project: project, namespace: namespace)
        case .console(let file):
            serveConsole(exchange, file: file)
        }
    }

    /// CORS fields for answers to the browser SDKs (see ``CORS``).
    static func addCORSFields(to headers: inout HTTPHeaders) {
        CORS.addFields(to: &headers)
    }

    func respond(_ responder: Responder, route: String, _ response: HTTPResponse, receivedNanos: Int64) {
        metrics.recordRequest(route: route, status: response.status, seconds: Double(rcs_monotonic_nanos() - receivedNanos) / 1e9)
        responder.respond(response)
    }
}
