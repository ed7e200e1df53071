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
    /// The projects counter when projects and keys were last read from the store.
    let projectsChecked = Atomic<Int64>(.min)
    /// Reads what a request needs again when another worker changed it.
    let reloads: ReloadGate
    let validator: TemplateValidator
    let throttle: FetchThrottle
    let realtime: RealtimeHub
    let metrics: ServerMetrics
    /// Collects the other workers' numbers for `/metrics` and adoption.
    let peerGather: PeerGather
    let logger: Logger
    /// Owns every SQLite write (and the reads that may wait on disk), off the loop thread.
    let storeQueue = DispatchQueue(label: "remote-config.store")
    /// Whether the store answered this worker's last poll (`/readyz`, without a store call on
    /// the loop).
    let storeHealth = Atomic<Bool>(true)
    /// Canaries this worker tried to promote on schedule (`project/namespace/version`), once each.
    let promotionsTried = Mutex<Set<String>>([])

    init(configuration: ServerConfiguration, store: any TemplateStore, loop: EventLoop,
         admission: StreamAdmission, counters: ChangeCounters, peers: PeerChannel?, logger: Logger) throws {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        self.counters = counters
        access = AccessControl(adminTokens: configuration.adminTokens)
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
        try loadProjects()
    }

    /// Declares the config file's projects in the store, then loads every project and key.
    private func loadProjects() throws {
        for declaration in configuration.projects {
            try store.upsertProject(StoredProject(
                id: declaration.id, number: declaration.number,
                displayName: declaration.displayName ?? declaration.id, percentSeed: declaration.percentSeed ?? ""))
        }
        try reloadProjects()
    }

    /// Reads projects and API keys from the store again (another worker may have added some).
    func reloadProjects() throws {
        // Read before the store, as templates do (see ``ChangeCounters``).
        let counter = counters.projects
        let stored = try store.projects()
        projects.replaceAll(stored)
        for project in stored {
            var digests = try store.apiKeyHashes(project: project.id).compactMap(SecretDigest.init(hex:))
            let declared = configuration.projects.first { $0.id == project.id }?.apiKeys ?? []
            digests += declared.map(SecretDigest.init(secret:))
            access.setAPIKeyDigests(digests, project: project.id)
        }
        projectsChecked.max(counter, ordering: .sequentiallyConsistent)
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
            guard storeHealth.load(ordering: .relaxed) else {
                throw APIError(503, "The store is unavailable: fetches and streams are served from the versions known; publishes are refused.")
            }
            exchange.respond(.json(Array("{\"status\":\"ready\"}".utf8)))
        case .metrics:
            try exchange.allow(.get)
            _ = try requireAdmin(exchange)
            respondWithMetrics(exchange)
        case .openAPI:
            try exchange.allow(.get)
            exchange.respond(.json(OpenAPIDocument.json))
        case .projects:
            try handleProjects(exchange)
        case .apiKeys(let project):
            try handleAPIKeys(exchange, project: try resolve(project))
        case .template(let project, let namespace, let customMethod):
            let project = try resolve(project)
            let namespace = try checkNamespace(namespace)
            try handleTemplate(exchange, project: project, namespace: namespace, customMethod: customMethod)
        case .serverTemplate(let project):
            try exchange.allow(.get)
            _ = try requireAdmin(exchange)
            try getServerTemplate(exchange, project: try resolve(project))
        case .fetch(let project, let namespace):
            if method == .options { return exchange.respond(preflight()) }
            try exchange.allow(.post)
            try fetch(exchange, project: try resolve(project), namespace: try checkNamespace(namespace))
        case .stream(let project, let namespace):
            if method == .options { return exchange.respond(preflight()) }
            try openStream(exchange, project: project, namespace: namespace)
        case .console(let file):
            serveConsole(exchange, file: file)
        }
    }

    // MARK: Shared checks

    func resolve(_ idOrNumber: String) throws -> StoredProject {
        guard let project = projects.project(idOrNumber) else {
            throw APIError.notFound("Project '\(idOrNumber)' not found.")
        }
        return project
    }

    func checkNamespace(_ namespace: String) throws -> TemplateNamespace {
        guard let known = TemplateNamespace(rawValue: namespace) else {
            throw APIError.notFound("Namespace '\(namespace)' not found; use 'firebase' or 'firebase-server'.")
        }
        return known
    }

    /// The admin behind `Authorization: Bearer <token>`: 401 without credentials, 403 with
    /// credentials that are not an admin token (e.g. a client API key).
    func requireAdmin(_ exchange: Exchange) throws -> AccessControl.AdminIdentity {
        guard let header = exchange.request.head.headers["Authorization"] else {
            throw APIError(401, "Missing admin credentials: send 'Authorization: Bearer <admin token>'.")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError(401, "The Authorization header must be 'Bearer <admin token>'.")
        }
        guard let identity = access.admin(bearer: String(parts[1]).trimmingCharacters(in: .whitespaces)) else {
            throw APIError(403, "The credentials are not a valid admin token.")
        }
        return identity
    }

    /// Fetch and real-time need one of the project's API keys (or an admin token).
    func requireClientKey(_ exchange: Exchange, project: StoredProject) throws {
        guard configuration.fetch.requireAPIKey else { return }
        let headers = exchange.request.head.headers
        if let key = headers["X-Goog-Api-Key"] ?? exchange.uri["key"] {
            guard access.isValidAPIKey(key, project: project.id) else {
                throw APIError(403, "API key not valid for project '\(project.id)'.")
            }
            return
        }
        if headers["Authorization"] != nil, (try? requireAdmin(exchange)) != nil { return }
        throw APIError(401, "Missing API key: send 'X-Goog-Api-Key' or '?key='.")
    }

    /// What every answer to a browser SDK carries, errors and streams included: without it
    /// a cross-origin page sees a network error instead of the status (spec §1.6).
    static func addCORSFields(to headers: inout HTTPHeaders) {
        headers.add(name: "Access-Control-Allow-Origin", value: "*")
        headers.add(name: "Access-Control-Expose-Headers", value: "ETag")
    }

    /// CORS preflight for browser SDKs (spec §1.6).
    private func preflight() -> HTTPResponse {
        var headers = HTTPHeaders()
        Self.addCORSFields(to: &headers)
        headers.add(name: "Access-Control-Allow-Methods", value: "POST, OPTIONS")
        headers.add(name: "Access-Control-Allow-Headers",
                    value: "Content-Type, Content-Encoding, If-None-Match, X-Goog-Api-Key, X-Goog-Firebase-Installations-Auth")
        headers.add(name: "Access-Control-Max-Age", value: "3600")
        return HTTPResponse(status: 204, headers: headers)
    }

    func respond(_ responder: Responder, route: String, _ response: HTTPResponse, receivedNanos: Int64) {
        metrics.recordRequest(route: route, status: response.status, seconds: Double(rcs_monotonic_nanos() - receivedNanos) / 1e9)
        responder.respond(response)
    }
}
