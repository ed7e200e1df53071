import ConfigCore
import ConfigStore
import Dispatch
public import EventLoop
public import HTTP1
import Logging

/// The remote config service of one worker process: builds its parts once (the templates and
/// projects it serves, the endpoints, the router) and hands every request to the router. Runs
/// on the worker's event loop; store writes go to one serial queue.
public final class Application: HTTPRequestHandler, Sendable {
    let configuration: ServerConfiguration
    let store: any TemplateStore
    let templates: TemplateRegistry
    /// What the worker group committed, for read-your-writes across workers.
    let counters: ChangeCounters
    /// Reads what a request needs again when another worker changed it.
    let reloads: ReloadGate
    let realtime: RealtimeHub
    let metrics: ServerMetrics
    /// Collects the other workers' numbers for `/metrics` and adoption.
    let peerGather: PeerGather
    let logger: Logger
    /// Owns every SQLite write (and the reads that may wait on disk), off the loop thread.
    let storeQueue = DispatchQueue(label: "remote-config.store")
    /// Whether the store answered this worker's last poll (`/readyz`, without a store call on
    /// the loop).
    let storeHealth = StoreHealth()
    let router: Router
    private let projectLoader: ProjectLoader
    private let readYourWrites: ReadYourWrites
    private let canarySchedule: CanarySchedule

    init(configuration: ServerConfiguration, store: any TemplateStore, loop: EventLoop,
         admission: StreamAdmission, counters: ChangeCounters, peers: PeerChannel?, logger: Logger) throws {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        self.counters = counters
        let access = AccessControl(adminTokens: configuration.adminTokens,
                                   apiKeyRequired: configuration.fetch.requireAPIKey)
        let projects = ProjectDirectory()
        templates = TemplateRegistry(store: store, projects: projects, counters: counters, logger: logger)
        reloads = ReloadGate(loop: loop)
        metrics = ServerMetrics(worker: peers?.worker ?? 0)
        peerGather = PeerGather(channel: peers, loop: loop)
        realtime = RealtimeHub(settings: configuration.realtime, loop: loop, templates: templates,
                               admission: admission, peers: peers, metrics: metrics, logger: logger)
        projectLoader = ProjectLoader(store: store, projects: projects, access: access, counters: counters,
                                      declarations: configuration.projects)
        readYourWrites = ReadYourWrites(projectLoader: projectLoader, projects: projects, templates: templates,
                                        reloads: reloads, realtime: realtime, logger: logger)
        let afterCommit = CommitFollowUp(store: store, templates: templates, counters: counters, realtime: realtime,
                                         metrics: metrics, storeQueue: storeQueue, logger: logger)
        canarySchedule = CanarySchedule(store: store, templates: templates, projects: projects,
                                        afterCommit: afterCommit, storeQueue: storeQueue, logger: logger)
        let endpoints = Self.endpoints(
            configuration: configuration, store: store, templates: templates, projects: projects, access: access,
            counters: counters, realtime: realtime, metrics: metrics, peerGather: peerGather,
            storeHealth: storeHealth, afterCommit: afterCommit)
        router = Router(endpoints: endpoints, access: access, projects: projects, readYourWrites: readYourWrites,
                        metrics: metrics, logger: logger, storeQueue: storeQueue)
        try projectLoader.loadDeclared()
    }

    /// Every endpoint, each given only what it uses.
    private static func endpoints(
        configuration: ServerConfiguration, store: any TemplateStore, templates: TemplateRegistry,
        projects: ProjectDirectory, access: AccessControl, counters: ChangeCounters, realtime: RealtimeHub,
        metrics: ServerMetrics, peerGather: PeerGather, storeHealth: StoreHealth, afterCommit: CommitFollowUp
    ) -> Endpoints {
        let maxBodyBytes = configuration.http.maxBodyBytes
        var limits = TemplateLimits.firebase
        limits.maxParameters = configuration.templates.maxParameters
        limits.maxConditions = configuration.templates.maxConditions
        let throttle = FetchThrottle(burst: configuration.fetch.throttleBurst,
                                     perMinute: configuration.fetch.throttlePerMinute)
        let canaries = CanaryAdminEndpoint(store: store, templates: templates, afterCommit: afterCommit,
                                           maxBodyBytes: maxBodyBytes)
        return Endpoints(
            health: HealthEndpoint(storeHealth: storeHealth),
            metrics: MetricsEndpoint(metrics: metrics, peerGather: peerGather),
            projects: ProjectAdminEndpoint(store: store, projects: projects, access: access, counters: counters,
                                           maxBodyBytes: maxBodyBytes),
            templates: TemplateAdminEndpoint(store: store, templates: templates,
                                             validator: TemplateValidator(limits: limits), afterCommit: afterCommit,
                                             canaries: canaries),
            versions: VersionAdminEndpoint(store: store, templates: templates, afterCommit: afterCommit,
                                           maxBodyBytes: maxBodyBytes),
            canaries: canaries,
            adoption: AdoptionEndpoint(realtime: realtime, templates: templates, peerGather: peerGather),
            fetch: FetchEndpoint(templates: templates, throttle: throttle, realtime: realtime, metrics: metrics,
                                 maxBodyBytes: maxBodyBytes),
            stream: StreamEndpoint(projects: projects, access: access, realtime: realtime, metrics: metrics,
                                   maxBodyBytes: maxBodyBytes),
            console: ConsoleEndpoint())
    }

    public func handle(_ request: HTTPRequest, context: RequestContext, responder: Responder) {
        router.handle(request, context: context, responder: responder)
    }

    /// Google's error body also for what the HTTP server answers by itself (a malformed or slow
    /// request, a connection beyond the limit): clients parse every error the same way.
    public var errorBodyFormat: ErrorBodyFormat { ErrorBody.format }

    /// What this worker answers a peer's question with (the peer gathers them for the group).
    func localAnswer(_ question: PeerQuestion) -> [UInt8] {
        switch question {
        case .metrics: router.endpoints.metrics.localAnswer()
        case .adoption(let key): router.endpoints.adoption.localAnswer(key)
        }
    }

    /// Reads projects and API keys from the store again (another worker may have added some).
    func reloadProjects() throws {
        try projectLoader.reload()
    }

    /// Reads `key`'s template again (blocking, off the loop) and tells the held streams when it
    /// moved on; false when the store could not be read.
    func reloadTemplate(_ key: TemplateKey) -> Bool {
        readYourWrites.reloadTemplate(key)
    }

    /// Promotes the canaries whose scheduled promotion is due (loop tick).
    func promoteDueCanaries() {
        canarySchedule.promoteDue()
    }

    /// CORS fields for answers to the browser SDKs (see ``CORS``).
    static func addCORSFields(to headers: inout HTTPHeaders) {
        CORS.addFields(to: &headers)
    }
}
