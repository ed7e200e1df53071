import ConfigStore
import Dispatch
import Foundation
import EventLoop
import Logging

/// Keeps this node's one connection that the store tells of every commit (PostgreSQL's
/// LISTEN), in the first worker's event loop, hands each change to `relay` and then
/// acknowledges it: a writer on any node waits for that before it answers.
///
/// Nothing is missed: after every (re)connect it reads the heads and relays what moved since it
/// last knew them; a connection that errs or leaves a heartbeat unanswered is dropped and made
/// again with back-off. The change-token poll of every worker stays as a slower backstop.
final class NodeListener {
    private let listener: any StoreChangeListener
    private let store: any TemplateStore
    private let loop: EventLoop
    private let logger: Logger
    private let metrics: ServerMetrics
    private let heartbeatSeconds: Int64
    private let relay: (StoreChange) -> Void
    /// Connecting blocks; it never runs on the loop.
    private let connectQueue = DispatchQueue(label: "remote-config.listener")

    // Loop thread only.
    private var watch: ReadableWatch?
    private var lastHeard: Int64 = 0
    private var heartbeatSentAt: Int64?
    private var retryDelay: Int64 = 0
    private var knownHeads: [TemplateKey: Int64]?
    private var stopped = false

    init(listener: any StoreChangeListener, store: any TemplateStore, loop: EventLoop, logger: Logger,
         metrics: ServerMetrics, heartbeatSeconds: Int64, relay: @escaping (StoreChange) -> Void) {
        self.listener = listener
        self.store = store
        self.loop = loop
        self.logger = logger
        self.metrics = metrics
        self.heartbeatSeconds = max(1, heartbeatSeconds)
        self.relay = relay
    }

    /// Connects in the background and watches the heartbeat every tick (loop thread, or before
    /// the loop runs).
    func start(knownHeads: [TemplateKey: Int64]) {
        self.knownHeads = knownHeads
        metrics.setListenerConnected(false)
        loop.onTick { [self] in checkHeartbeat() }
        connect()
    }

    /// Drops the connection for good (loop thread).
    func stop() {
        stopped = true
        drop(reason: nil)
    }

    // MARK: Connection

    private func connect() {
        let (listener, store, loop) = (self.listener, self.store, self.loop)
        let box = UncheckedBox(self)
        connectQueue.async {
            let result: Result<(Int32, [TemplateKey: Int64]), StoreError>
            do throws(StoreError) {
                // Subscribe first, then read: a commit lands in one or the other (or both).
                let fd = try listener.connect()
                result = .success((fd, try store.heads()))
            } catch {
                listener.close()
                result = .failure(error)
            }
            loop.execute {
                switch result {
                case .success(let (fd, heads)): box.value.connected(fd: fd, heads: heads)
                case .failure(let error): box.value.failedToConnect(error)
                }
            }
        }
    }

    private func connected(fd: Int32, heads: [TemplateKey: Int64]) {
        loop.preconditionInLoop()
        guard !stopped else { return listener.close() }
        do {
            watch = try loop.watchReadable(fd: fd) { [self] in readable() }
        } catch {
            logger.error("cannot watch the store's notification socket", metadata: ["error": "\(error)"])
            listener.close()
            return retryLater()
        }
        logger.notice("listening to the store's notifications", metadata: ["retryDelay": "\(retryDelay)"])
        metrics.setListenerConnected(true)
        retryDelay = 0
        lastHeard = loop.now
        heartbeatSentAt = nil
        // What was published while no connection listened.
        let previous = knownHeads ?? [:]
        knownHeads = heads
        for (key, version) in heads where (previous[key] ?? 0) < version {
            relay(.template(key, version: version))
        }
        relay(.projects)
        acknowledge()
    }

    /// Tells writers that this node applied what it received: every worker now checks the
    /// store before answering about it.
    private func acknowledge() {
        do throws(StoreError) {
            try listener.acknowledge()
        } catch {
            drop(reason: "\(error)")
        }
    }

    private func failedToConnect(_ error: StoreError) {
        loop.preconditionInLoop()
        logger.warning("cannot listen to the store's notifications", metadata: ["error": "\(error)"])
        retryLater()
    }

    private func readable() {
        do throws(StoreError) {
            let changes = try listener.receive()
            lastHeard = loop.now
            if !listener.isAwaitingHeartbeat { heartbeatSentAt = nil }
            guard !changes.isEmpty else { return }
            guard Self.testRelayDelay == 0 else {
                let box = UncheckedBox(self)
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Self.testRelayDelay)) { [loop] in
                    loop.execute { box.value.apply(changes) }
                }
                return
            }
            apply(changes)
        } catch {
            drop(reason: "\(error)")
        }
    }

    /// Relays what was received, then acknowledges it.
    private func apply(_ changes: [StoreChange]) {
        for change in changes {
            if case .template(let key, let version) = change {
                let known = knownHeads?[key] ?? 0
                knownHeads?[key] = max(known, version)
            }
            relay(change)
        }
        acknowledge()
    }

    /// Test only: `RCS_TEST_RELAY_DELAY_MS` holds each notification this long before it is
    /// applied, as a slow network or a busy node would, to show that writers wait for it.
    private static let testRelayDelay = Int(ProcessInfo.processInfo.environment["RCS_TEST_RELAY_DELAY_MS"] ?? "") ?? 0

    private func checkHeartbeat() {
        guard watch != nil else { return }
        if let sent = heartbeatSentAt {
            if loop.now - sent >= heartbeatSeconds { drop(reason: "no answer to a heartbeat in \(heartbeatSeconds) s") }
            return
        }
        guard loop.now - lastHeard >= heartbeatSeconds else { return }
        do throws(StoreError) {
            try listener.sendHeartbeat()
            heartbeatSentAt = loop.now
        } catch {
            drop(reason: "\(error)")
        }
    }

    /// Stops watching before the socket closes: its number may be reused at once.
    private func drop(reason: String?) {
        if let watch { loop.stopWatching(watch) }
        watch = nil
        heartbeatSentAt = nil
        listener.close()
        metrics.setListenerConnected(false)
        guard let reason, !stopped else { return }
        logger.warning("lost the store's notifications; reconnecting", metadata: ["reason": "\(reason)"])
        metrics.recordListenerReconnect()
        retryLater()
    }

    /// At once after a loss, then 1, 2, 4 and at most 8 s apart.
    private func retryLater() {
        guard !stopped else { return }
        let delay = retryDelay
        retryDelay = min(8, max(1, retryDelay * 2))
        if delay == 0 { return connect() }
        loop.schedule(afterSeconds: delay) { [self] in connect() }
    }
}

/// Carries the loop-confined listener through the connect queue and back to the loop; only the
/// loop touches `value` (`connected`, `failedToConnect` run there).
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
