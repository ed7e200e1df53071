import CLinuxIO
public import ConfigCore
import ConfigStore
import EventLoop
import Foundation
import HTTP1
public import Logging
public import ServerCore

/// One serving process: the store, an event loop, the HTTP server and the application.
/// The daemon runs one per worker; tests start one in-process on port 0.
public final class ServerInstance: Sendable {
    /// Where a worker fits in its group (nil for a stand-alone server).
    public struct GroupMembership: Sendable {
        public var group: String
        public var index: Int
        public var workers: Int
        /// The shared counters' memfd, inherited from the supervisor.
        public var sharedFD: Int32

        public init(group: String, index: Int, workers: Int, sharedFD: Int32) {
            self.group = group
            self.index = index
            self.workers = workers
            self.sharedFD = sharedFD
        }
    }

    public let port: Int
    let server: HTTPServer
    let application: Application
    let store: any ConfigDatabase

    /// Opens the store (running migrations), binds and starts serving.
    /// - Parameter clock: where every time of day the server reads comes from.
    public init(configuration: ServerConfiguration, membership: GroupMembership? = nil, clock: any WallClock,
                logger: Logger) throws {
        // One listener per node: the first worker (or the only process) holds it.
        let holdsListener = (membership?.index ?? 0) == 0
        store = try StoreComposition.open(configuration, holdingListener: holdsListener, clock: clock, logger: logger)
        let loop = try EventLoop()
        let admission: StreamAdmission
        let counters: ChangeCounters
        let board: CatchUpBoard
        let peers: PeerChannel?
        if let membership {
            guard let region = rcs_map_shared(membership.sharedFD, SharedRegion.bytes) else {
                throw ConfigurationError("cannot map the shared counters (errno \(errno))")
            }
            counters = ChangeCounters(region: SharedRegion.changes(in: region))
            board = CatchUpBoard(region: SharedRegion.catchUp(in: region))
            admission = StreamAdmission(region: SharedRegion.admission(in: region), worker: membership.index,
                                        maxConnections: configuration.realtime.maxConnections,
                                        maxPerProject: configuration.realtime.maxConnectionsPerProject)
            peers = try PeerChannel(group: membership.group, worker: membership.index, workers: membership.workers)
        } else {
            admission = .local(maxConnections: configuration.realtime.maxConnections,
                               maxPerProject: configuration.realtime.maxConnectionsPerProject)
            counters = .local()
            board = .local()
            peers = nil
        }
        application = try Application(configuration: configuration, store: store, loop: loop, admission: admission,
                                      counters: counters, board: board, peers: peers, clock: clock, logger: logger)
        server = HTTPServer(configuration: Self.httpConfiguration(configuration.http, trustedProxies: configuration.trustedProxies), handler: application, loop: loop, logger: logger)
        port = try server.listen(host: configuration.host, port: configuration.port)
        let application = application
        server.onShutdown { application.realtime.sayGoodbye() }
        let listener = holdsListener ? store.makeChangeListener(name: try Self.listenerName(configuration)) : nil
        try application.start(listener: listener)
        // Bulk work, thousands of requests a second: on a saturated core it yields to the few
        // short tasks a publish waits on (its store lane, every worker's catch-up, the node's
        // listener), which were started above at the default priority.
        loop.start(name: "rcs-loop-\(membership?.index ?? 0)", niceIncrement: Self.loopNiceIncrement)
    }

    /// Stops accepting, says goodbye to held streams, drains (bounded), stops the background
    /// jobs and lets the webhook attempts under way end (bounded), writes the usage counted
    /// since the last write, stops catching up, closes the store.
    public func shutdown() {
        server.shutdown()
        application.jobs.stop(waitingAtMost: application.configuration.webhooks.timeoutSeconds + 1)
        // What was counted since the last write, now that no request is answered any more.
        application.usage.flush(now: application.clock.now, served: application.templates.servedTemplates)
        application.storeQueue.drain()
        application.catchUp.stop()
        store.close()
    }

    /// How much lower the event loop's scheduling priority is than the other threads' (nice +5:
    /// they get three times its weight while they run, which is rarely).
    static let loopNiceIncrement: Int32 = 5

    /// Names the node's notification connection on the database server (`application_name`):
    /// its id first (kept in the data directory; the server cuts a long name at 63 bytes), so
    /// that the listener of this node, restarted, ends its predecessor's session and no other.
    static func listenerName(_ configuration: ServerConfiguration) throws -> String {
        "\(try NodeIdentity.id(in: configuration.dataDir)) \(ProcessInfo.processInfo.hostName):\(configuration.port)"
    }

    static func httpConfiguration(_ settings: HTTPSettings, trustedProxies: [String]) -> HTTPServerConfiguration {
        HTTPServerConfiguration(
            limits: HTTPLimits(maxHeaderBytes: settings.maxHeaderBytes, maxHeaderCount: settings.maxHeaderCount,
                               maxURILength: settings.maxURILength, maxBodyBytes: settings.maxBodyBytes),
            headerTimeout: Int64(settings.headerTimeout), bodyTimeout: Int64(settings.bodyTimeout),
            idleTimeout: Int64(settings.idleTimeout), writeTimeout: Int64(settings.writeTimeout),
            maxConnections: settings.maxConnectionsPerWorker, streamOutputCap: settings.maxStreamBacklogBytes,
            shutdownGracePeriod: Int64(settings.shutdownGracePeriod),
            accessLog: settings.accessLog, trustedProxies: Set(trustedProxies))
    }
}
