import CLinuxIO
import ConfigStore
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
/// hand the rest (reloads, held streams) to the workers' loops.
final class NodeListener: @unchecked Sendable {
    // @unchecked: `machine` and `socket` are touched only by the listener's thread (`run` and
    // what it calls); the rest is immutable or thread-safe (`stopRequested`, the wake fd).
    private let listener: any StoreChangeListener
    private let store: any TemplateStore
    private let logger: Logger
    private let metrics: ServerMetrics
    private let relay: @Sendable (StoreChange) -> Void
    /// Told whether the listener is connected and caught up (`ChangeCounters.listenerAbsent`).
    private let present: @Sendable (Bool) -> Void
    private let clock: @Sendable () -> Int64
    /// Signalled by `stop()` to end the thread's wait at once.
    private let wake = rcs_eventfd()
    private let stopRequested = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)
    private var machine: ListenerStateMachine
    private var socket: Int32 = -1

    /// - Parameters:
    ///   - knownHeads: the versions the node loaded before it listens; what moved since is
    ///     relayed once connected.
    ///   - clock: monotonic milliseconds.
    init(listener: any StoreChangeListener, store: any TemplateStore, knownHeads: [TemplateKey: Int64],
         heartbeatSeconds: Int, logger: Logger, metrics: ServerMetrics,
         clock: @escaping @Sendable () -> Int64 = { rcs_monotonic_millis() },
         present: @escaping @Sendable (Bool) -> Void = { _ in },
         relay: @escaping @Sendable (StoreChange) -> Void) {
        self.listener = listener
        self.store = store
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
        self.relay = relay
        self.present = present
        machine = ListenerStateMachine(knownHeads: knownHeads, heartbeatMillis: Int64(heartbeatSeconds) * 1000)
    }

    deinit { Glibc.close(wake) }

    /// Starts the thread; it connects at once.
    func start() {
        present(false)
        metrics.setListenerConnected(false)
        let thread = Thread { [self] in run() }
        thread.name = "rcs-listener"
        thread.start()
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
        let timeout = machine.nextDeadline.map { Int32(clamping: max(0, $0 - clock())) } ?? -1
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
                for change in changes { relay(change) }
                do throws(StoreError) { try listener.acknowledge() } catch {
                    perform(machine.failed(reason: "\(error)", now: clock()))
                }
            case .sendHeartbeat:
                do throws(StoreError) { try listener.sendHeartbeat() } catch {
                    perform(machine.failed(reason: "\(error)", now: clock()))
                }
            case .drop(let reason):
                close()
                logger.warning("lost the store's notifications; reconnecting", metadata: ["reason": "\(reason)"])
                metrics.recordListenerReconnect()
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
            heads = try store.heads()
        } catch {
            close()
            logger.warning("cannot listen to the store's notifications", metadata: ["error": "\(error)"])
            return perform(machine.connectFailed(now: clock()))
        }
        logger.notice("listening to the store's notifications")
        metrics.setListenerConnected(true)
        perform(machine.connected(heads: heads, now: clock()))
        // Whatever moved while it was absent is relayed: the counters hold again.
        present(socket >= 0)
    }

    private func close() {
        present(false)
        listener.close()
        socket = -1
        metrics.setListenerConnected(false)
    }
}
