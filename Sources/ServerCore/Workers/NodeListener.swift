import CLinuxIO
import ConfigStore
import EventLoop
import Foundation
import Glibc
import Logging
import Synchronization

/// The I/O around `ListenerStateMachine`: this node's one connection that the store tells of
/// every commit (PostgreSQL's LISTEN), on a thread of its own, so that a writer on any node,
/// which waits for every node's acknowledgement, never waits for a worker's busy event loop.
///
/// `relay` runs on that thread, before the acknowledgement: it must make every worker of the
/// node check the store before it answers about the change (the shared change counters), and
/// hand the rest (reloads, held streams) to the workers' loops. Then the listener waits, still
/// reading and relaying what comes meanwhile, until every worker serves it (`NodeWorkers`):
/// only then is it acknowledged. When they cannot in time, the listener drops its connection
/// (its peers stop waiting for this node) and connects again.
final class NodeListener: @unchecked Sendable {
    // @unchecked: `machine` and `socket` are touched only by the listener's thread (`run` and
    // what it calls); the rest is immutable or thread-safe (`stopRequested`, the wake fd).
    private let listener: any StoreChangeListener
    private let store: any TemplateStore
    private let logger: Logger
    private let metrics: ServerMetrics
    private let relay: @Sendable (StoreChange) -> Void
    private let workers: NodeWorkers
    /// Told when the connection failed (not when stopped).
    private let lost: @Sendable () -> Void
    /// Told whether the listener is connected and caught up (`ChangeCounters.listenerAbsent`).
    private let present: @Sendable (Bool) -> Void
    private let clock: @Sendable () -> Int64
    /// Signalled by `stop()` to end the thread's wait at once.
    private let wake = rcs_eventfd()
    private let stopRequested = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)
    private var machine: ListenerStateMachine
    private var socket: Int32 = -1
    /// The changes relayed now are what moved while the node was not listening.
    private var catchingUpAfterConnect = false
    /// What was relayed and not acknowledged yet: the epoch the workers must reach, the store's
    /// revision it covers, and since when (monotonic milliseconds) the oldest of it waits.
    private var awaiting: (epoch: Int64, revision: Int64, since: Int64)?
    /// Connected, and caught up once since: the counters hold (`present`).
    private var isPresent = false

    /// - Parameters:
    ///   - knownHeads: the versions the node loaded before it listens; what moved since is
    ///     relayed once connected.
    ///   - clock: monotonic milliseconds.
    init(listener: any StoreChangeListener, store: any TemplateStore, knownHeads: [TemplateKey: Int64],
         heartbeatSeconds: Int, logger: Logger, metrics: ServerMetrics,
         clock: @escaping @Sendable () -> Int64 = { rcs_monotonic_millis() },
         present: @escaping @Sendable (Bool) -> Void = { _ in },
         workers: NodeWorkers = .none,
         lost: @escaping @Sendable () -> Void = {},
         relay: @escaping @Sendable (StoreChange) -> Void) {
        self.listener = listener
        self.store = store
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
        self.relay = relay
        self.present = present
        self.workers = workers
        self.lost = lost
        machine = ListenerStateMachine(knownHeads: knownHeads, heartbeatMillis: Int64(heartbeatSeconds) * 1000)
    }

    deinit { Glibc.close(wake) }

    /// Starts the thread; it connects at once.
    func start() {
        present(false)
        metrics.setListenerConnected(false)
        startNamedThread("rcs-listener") { [self] in run() }
    }

    /// Ends the thread and closes the connection; waits for it (a connect in progress ends at
    /// the connection's own time-out first).
    func stop() {
        guard !stopRequested.exchange(true, ordering: .sequentiallyConsistent) else { return }
        _ = rcs_eventfd_signal(wake)
        finished.wait()
    }

    // MARK: The thread

    private func run() {
        perform(machine.start())
        while !stopRequested.load(ordering: .sequentiallyConsistent) {
            waitForEvents()
            guard !stopRequested.load(ordering: .sequentiallyConsistent) else { break }
            perform(machine.tick(now: clock()))
        }
        perform(machine.stop())
        finished.signal()
    }

    /// Waits until the socket is readable, `stop()` is called, or the machine's next deadline;
    /// takes in what the socket brought.
    private func waitForEvents() {
        var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        if socket >= 0 { descriptors.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
        var timeout = machine.nextDeadline.map { Int32(clamping: max(0, $0 - clock())) } ?? -1
        // Workers report by shared memory: look again every millisecond while they catch up.
        if awaiting != nil { timeout = timeout < 0 ? 1 : min(timeout, 1) }
        defer { settle() }
        guard poll(&descriptors, nfds_t(descriptors.count), timeout) > 0 else { return }
        if descriptors[0].revents != 0 { _ = rcs_eventfd_drain(wake) }
        guard descriptors.count > 1, descriptors[1].revents != 0 else { return }
        do throws(StoreError) {
            let changes = try listener.receive()
            perform(machine.received(changes, heartbeatAnswered: !listener.isAwaitingHeartbeat, now: clock()))
        } catch {
            perform(machine.failed(reason: "\(error)", now: clock()))
        }
    }

    private func perform(_ actions: [ListenerStateMachine.Action]) {
        for action in actions {
            switch action {
            case .connect:
                connect()
            case .relayAndAcknowledge(let changes):
                // Everything received so far is relayed now: the epoch covers that revision.
                let revision = listener.receivedRevision
                for change in changes { relay(change) }
                let epoch = workers.beginCatchUp(catchingUpAfterConnect)
                awaiting = (epoch, revision, awaiting?.since ?? clock())
                settle()
            case .sendHeartbeat:
                do throws(StoreError) { try listener.sendHeartbeat() } catch {
                    perform(machine.failed(reason: "\(error)", now: clock()))
                }
            case .drop(let reason):
                close()
                logger.warning("lost the store's notifications; reconnecting", metadata: ["reason": "\(reason)"])
                metrics.recordListenerReconnect()
                lost()
            case .close:
                close()
            }
        }
    }

    /// Subscribes first, then reads the heads: a commit lands in one or the other (or both).
    private func connect() {
        let heads: [TemplateKey: Int64]
        do throws(StoreError) {
            socket = try listener.connect()
            // Bounded as the workers' catch-up is: a node too slow to read its store stays behind.
            let deadline = ContinuousClock.now + .milliseconds(workers.deadlineMillis > 0 ? workers.deadlineMillis : 30_000)
            heads = try StoreDeadline.run(until: deadline) { () -> Result<[TemplateKey: Int64], StoreError> in
                do throws(StoreError) { return .success(try store.heads()) } catch { return .failure(error) }
            }.get()
        } catch {
            close()
            logger.warning("cannot listen to the store's notifications", metadata: ["error": "\(error)"])
            return perform(machine.connectFailed(now: clock()))
        }
        logger.notice("listening to the store's notifications")
        metrics.setListenerConnected(true)
        catchingUpAfterConnect = true
        perform(machine.connected(heads: heads, now: clock()))
        catchingUpAfterConnect = false
    }

    /// Acknowledges once every serving worker read what was relayed; gives up past the
    /// deadline: the node is then behind, and connects again to catch up.
    private func settle() {
        guard let (epoch, revision, since) = awaiting else { return }
        let late = workers.workersBehind(epoch)
        if late.isEmpty {
            awaiting = nil
            machine.acknowledged()
            workers.setBehind(false, [])
            let wasAbsent = !isPresent
            if wasAbsent {
                // What moved while it was absent is read by every worker: the counters hold again.
                isPresent = true
                present(true)
            }
            do throws(StoreError) {
                try listener.acknowledge(through: revision)
                if wasAbsent { logger.notice("caught up with the store's notifications", metadata: ["revision": "\(revision)"]) }
            } catch {
                perform(machine.failed(reason: "\(error)", now: clock()))
            }
        } else if clock() - since >= workers.deadlineMillis {
            awaiting = nil
            workers.setBehind(true, late)
            perform(machine.failed(reason: "workers \(late) did not read what was announced within \(workers.deadlineMillis) ms",
                                   now: clock()))
        }
    }

    private func close() {
        awaiting = nil
        isPresent = false
        present(false)
        listener.close()
        socket = -1
        metrics.setListenerConnected(false)
    }
}

/// What a node's listener asks of its workers between hearing of changes and acknowledging them
/// (`CatchUpBoard`).
struct NodeWorkers: Sendable {
    /// Moves what the workers must read again (everything, after a connect), raises the epoch
    /// and asks them to catch up; returns the epoch.
    var beginCatchUp: @Sendable (_ afterConnect: Bool) -> Int64
    /// The serving workers that have not reached `epoch`.
    var workersBehind: @Sendable (_ epoch: Int64) -> [Int]
    /// Told when the workers caught up (false) or did not in time (true, with the late ones).
    var setBehind: @Sendable (_ behind: Bool, _ late: [Int]) -> Void
    /// How long the workers may take before the node counts as behind.
    var deadlineMillis: Int64

    /// No workers to wait for: what is relayed is acknowledged at once.
    static let none = NodeWorkers(beginCatchUp: { _ in 0 }, workersBehind: { _ in [] }, setBehind: { _, _ in },
                                  deadlineMillis: 0)
}
