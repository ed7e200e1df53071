import ChangeControl
import ConfigCore
import ConfigStore
import Dispatch
import Foundation
import Insights
public import EventLoop
public import HTTP1
import Logging
import Management
import OpenFeature
import ServerCore
import SignIn
import Webhooks

/// The remote config service of one worker process: builds its parts once (the templates and
/// projects it serves, the one path for changes, the endpoints, the router), starts what watches
/// for changes and its background jobs, and hands every request to the router. Runs on the
/// worker's event loop; store calls go to the lanes of its store executor.
public final class Application: HTTPRequestHandler, Sendable {
    let configuration: ServerConfiguration
    let store: any ConfigDatabase
    let templates: TemplateRegistry
    let realtime: RealtimeHub
    let updates: TemplateUpdates
    let metrics: ServerMetrics
    let logger: Logger
    /// Every store call of the worker, off the loop thread, a lane per kind of work.
    let storeExecutor: StoreExecutor
    /// Runs the store's writes (and the reads that may wait on them), off the loop thread.
    var storeQueue: StoreQueue { storeExecutor.requests }
    let router: Router
    private let loop: EventLoop
    let counters: ChangeCounters
    let board: CatchUpBoard
    let catchUp: WorkerCatchUp
    private let peers: PeerChannel?
    private let peerGather: PeerGather
    /// Whether the store answered this worker's last poll (`/readyz`, without a store call on
    /// the loop).
    private let storeHealth = StoreHealth()
    private let controlPlane: ControlPlane
    /// Where everything that depends on the time of day reads it.
    let clock: any WallClock
    /// The worker's background jobs: the store poll, due changes, webhook delivery, pruning.
    let jobs: JobRuntime
    /// What notices the commits this worker did not make (its store poll is a job).
    private let changeFeed: ChangeFeed
    /// Sends the webhook outbox's deliveries.
    let webhooks: WebhookDispatcher
    /// What the worker counted of its clients' evaluations, written to the store by `usage flush`.
    let usage: UsageLedger
    /// The endpoints that also answer the worker's peers (`PeerMailbox`).
    private let metricsEndpoint: MetricsEndpoint
    private let adoption: AdoptionEndpoint

    init(configuration: ServerConfiguration, store: any ConfigDatabase, loop: EventLoop,
         admission: StreamAdmission, counters: ChangeCounters, board: CatchUpBoard, peers: PeerChannel?,
         clock: any WallClock, logger: Logger) throws {
        self.configuration = configuration
        self.store = store
        self.clock = clock
        let timeout = configuration.store.requestTimeout
        storeExecutor = StoreExecutor(timeout: timeout)
        // One worker of each node leads it: the first, which also holds the node's listener.
        jobs = JobRuntime(clock: clock, isLeader: (peers?.worker ?? 0) == 0, queue: storeExecutor.jobs, timeout: timeout)
        self.loop = loop
        self.logger = logger
        self.counters = counters
        self.board = board
        self.peers = peers
        let access = AccessControl(adminTokens: configuration.adminTokens, apiKeyRequired: configuration.fetch.requireAPIKey,
                                   sessionIdle: TimeInterval(configuration.signIn.sessionIdleMinutes) * 60, clock: clock)
        let projects = ProjectDirectory()
        // Change control's policies, which the control plane reads with the access scope.
        let policies = ChangePolicies()
        let usage = UsageLedger(store: store.usage, start: clock.now, logger: logger)
        self.usage = usage
        templates = TemplateRegistry(store: store.templates, projects: projects, counters: counters, usage: usage, logger: logger)
        let reloads = ReloadGate(loop: loop, queue: storeExecutor.reloads, timeout: timeout, board: board)
        metrics = ServerMetrics(worker: peers?.worker ?? 0)
        peerGather = PeerGather(channel: peers, loop: loop)
        realtime = RealtimeHub(settings: configuration.realtime, loop: loop, templates: templates,
                               admission: admission, metrics: metrics, logger: logger)
        let webhooks = WebhookDispatcher(store: store, settings: configuration.webhooks, runtime: jobs, logger: logger)
        self.webhooks = webhooks
        // A commit pokes webhook delivery, which sends the events it wrote at once.
        updates = TemplateUpdates(store: store.templates, templates: templates, counters: counters, reloads: reloads,
                                  realtime: realtime, peers: peers, metrics: metrics, board: board,
                                  onCommit: { webhooks.poke() }, logger: logger)
        controlPlane = ControlPlane(store: store, projects: projects, access: access, policies: policies, counters: counters,
                                    declarations: configuration.projects)
        let sessions = ConsoleSessions(store: store.access, access: access, counters: counters, controlPlane: controlPlane,
                                       settings: configuration.signIn, storeQueue: storeExecutor.requests, clock: clock)
        catchUp = WorkerCatchUp(board: board, worker: peers?.worker ?? 0, store: store.templates, templates: templates,
                                controlPlane: controlPlane, updates: updates, timeout: timeout,
                                logger: logger)
        let readYourWrites = ReadYourWrites(controlPlane: controlPlane, counters: counters, access: access, sessions: sessions,
                                            projects: projects, templates: templates, reloads: reloads, updates: updates,
                                            logger: logger)
        let applier = ChangeRequestApplier(store: store, updates: updates, clock: clock)
        let audit = AuditTrail(store: store, projects: projects, storeQueue: storeExecutor.requests,
                               recentVersions: templates.recentVersions, clock: clock, logger: logger)
        metricsEndpoint = MetricsEndpoint(metrics: metrics, peerGather: peerGather)
        adoption = AdoptionEndpoint(realtime: realtime, templates: templates, peerGather: peerGather)
        let routes = Self.routes(
            configuration: configuration, store: store, templates: templates, projects: projects, access: access,
            realtime: realtime, updates: updates, metrics: metrics, storeHealth: storeHealth, board: board,
            controlPlane: controlPlane, policies: policies, storeQueue: storeExecutor.requests, webhooks: webhooks, audit: audit,
            sessions: sessions, applier: applier, clock: clock)
        router = Router(table: RouteTable((routes + [metricsEndpoint.routes, adoption.routes].joined()).withEnvironmentPaths()),
                        checks: RequestChecks(access: access, projects: projects, sessions: sessions, audit: audit),
                        readYourWrites: readYourWrites,
                        services: ExchangeServices(metrics: metrics, audit: audit, storeQueue: storeExecutor.requests, board: board,
                                                   logger: logger))
        changeFeed = ChangeFeed(store: store, updates: updates, templates: templates, controlPlane: controlPlane,
                                counters: counters, board: board, peers: peers, health: storeHealth,
                                metrics: metrics, logger: logger, loop: loop, settings: configuration.store)
        jobs.add(changeFeed.pollJob)
        jobs.add(DueChanges(store: store, applier: applier, templates: templates, projects: projects, updates: updates,
                            audit: audit, logger: logger).job)
        jobs.add(webhooks.job)
        jobs.add(webhooks.pruningJob(logger: logger))
        jobs.add(.pruning("audit pruning", keepingDays: configuration.audit.retentionDays, logger: logger) { [store] cutoff in
            _ = try store.audit.prune(before: cutoff)
        })
        jobs.add(usage.job(templates: templates, interval: configuration.usage.flushIntervalSeconds))
        let review = UsageReview(store: store.usage, templates: templates, metrics: metrics, onReported: { webhooks.poke() },
                                 logger: logger)
        jobs.add(review.job)
        jobs.add(review.pruningJob)
        try controlPlane.loadDeclared()
    }

    /// Every feature's route declarations, each endpoint given only what it uses: the route
    /// table is their concatenation.
    private static func routes(
        configuration: ServerConfiguration, store: any ConfigDatabase, templates: TemplateRegistry,
        projects: ProjectDirectory, access: AccessControl, realtime: RealtimeHub,
        updates: TemplateUpdates, metrics: ServerMetrics, storeHealth: StoreHealth, board: CatchUpBoard,
        controlPlane: ControlPlane, policies: ChangePolicies, storeQueue: StoreQueue, webhooks: WebhookDispatcher,
        audit: AuditTrail, sessions: ConsoleSessions, applier: ChangeRequestApplier, clock: any WallClock
    ) -> [RouteDeclaration] {
        let maxBodyBytes = configuration.http.maxBodyBytes
        var limits = TemplateLimits.firebase
        limits.maxParameters = configuration.templates.maxParameters
        limits.maxConditions = configuration.templates.maxConditions
        let throttle = FetchThrottle(burst: configuration.fetch.throttleBurst,
                                     perMinute: configuration.fetch.throttlePerMinute)
        let canaries = CanaryAdminEndpoint(store: store.templates, templates: templates, updates: updates, clock: clock)
        let validation = TemplateValidation(validator: TemplateValidator(limits: limits))
        let templateEndpoint = TemplateAdminEndpoint(store: store.templates, templates: templates, validation: validation,
                                                     updates: updates, canaries: canaries)
        let directChanges = DirectChanges(policies: policies, audit: audit)
        let signIn = SignInEndpoint(
            provider: configuration.signIn.isEnabled ? OIDCProvider(settings: configuration.signIn, clock: clock) : nil,
            sessions: sessions, store: store.signIns, access: access, storeQueue: storeQueue, clock: clock, audit: audit)
        let changes = ChangeRequestEndpoint(store: store, templates: templates, projects: projects, policies: policies,
                                            controlPlane: controlPlane,
                                            validation: validation, applier: applier, clock: clock, audit: audit)
        // The client API first: its paths are tried first where they share a segment.
        return [
            FetchEndpoint(templates: templates, throttle: throttle, realtime: realtime, metrics: metrics, maxBodyBytes: maxBodyBytes,
                          clock: clock).routes,
            StreamEndpoint(realtime: realtime, maxBodyBytes: maxBodyBytes).routes,
            OFREPEndpoint(templates: templates, projects: projects, access: access, throttle: throttle, realtime: realtime,
                          metrics: metrics, namespaces: configuration.openFeatureNamespaces, clock: clock).routes,
            HealthEndpoint(storeHealth: storeHealth, board: board).routes,
            OpenAPIDocument.routes,
            ProjectAdminEndpoint(store: store.projects, projects: projects, access: access, controlPlane: controlPlane).routes,
            EnvironmentAdminEndpoint(store: store.projects, projects: projects, controlPlane: controlPlane).routes,
            AccessAdminEndpoint(store: store.access, access: access, projects: projects, controlPlane: controlPlane, clock: clock).routes,
            AuditEndpoint(store: store.audit).routes,
            WebhookAdminEndpoint(store: store, settings: configuration.webhooks, dispatcher: webhooks, clock: clock).routes,
            templateEndpoint.routes(directChanges: directChanges),
            VersionAdminEndpoint(store: store.templates, templates: templates, projects: projects, updates: updates, maxBodyBytes: maxBodyBytes,
                                 clock: clock).routes(directChanges: directChanges),
            canaries.routes(directChanges: directChanges),
            changes.routes,
            signIn.routes,
            UsageEndpoint(store: store.usage, templates: templates, clock: clock, topValues: configuration.usage.topValues).routes,
            ConsoleEndpoint().routes,
        ].flatMap { $0 }
    }

    /// Loads every template, then starts what runs on the loop's ticks, the background jobs and
    /// what watches for changes (call once, before the loop runs).
    /// - Parameter listener: the node's store listener, for the worker that holds it.
    func start(listener: (any StoreChangeListener)?) throws {
        catchUp.preloadAndRegister()
        realtime.start()
        jobs.start()
        changeFeed.start(listener: listener)
        if let peers {
            let (metrics, adoption) = (metricsEndpoint, adoption)
            try PeerMailbox(channel: peers, updates: updates, gather: peerGather) { question in
                switch question {
                case .metrics: metrics.localAnswer()
                case .adoption(let key): adoption.localAnswer(key)
                }
            }.start(on: loop)
        }
    }

    public func handle(_ request: HTTPRequest, context: RequestContext, responder: Responder) {
        router.handle(request, context: context, responder: responder)
    }

    /// Google's error body also for what the HTTP server answers by itself (a malformed or slow
    /// request, a connection beyond the limit): clients parse every error the same way.
    public var errorBodyFormat: ErrorBodyFormat {
        var format = ErrorBody.format
        // Under the prefixes whose routes word errors in a protocol of their own (OFREP's).
        format.byPathPrefix = router.table.errorFormats
        return format
    }

    /// SDK requests (fetches, streams) wait their turn on a new connection; the management
    /// API, the console and health checks are read at once, so that a flood of SDK requests
    /// (every client fetching after a publish) never holds up a publish.
    public func mayWait(requestStart: UnsafeRawBufferPointer) -> Bool {
        router.table.clientRequests.matches(requestStart)
    }
}
