import ConfigCore
import ConfigStore

/// What a node's store listener does next, decided without I/O: connect, catch up on what moved
/// while it was not listening, relay and acknowledge what it is told, send a heartbeat every
/// `ListenerLiveness.heartbeatInterval` whatever the traffic (the store counts a listener as
/// alive only while its heartbeats are recent), drop a connection that fails or leaves a
/// heartbeat unanswered, and connect again with back-off. `NodeListener` feeds it what happened and performs the actions it returns.
///
/// Times are monotonic milliseconds, passed in by the caller, so that tests drive it on a
/// manual clock.
struct ListenerStateMachine {
    enum State: Equatable {
        /// Not started yet.
        case idle
        /// The shell is connecting (blocking); `connected` or `connectFailed` follows.
        case connecting
        /// Connected; the next heartbeat is due at `heartbeatDue`, once the one sent at
        /// `heartbeatSentAt` (if any) is answered.
        case listening(heartbeatDue: Int64, heartbeatSentAt: Int64?)
        /// Waiting until `until` to connect again.
        case backingOff(until: Int64)
        /// Stopped for good.
        case stopped
    }

    enum Action: Equatable {
        /// Connect and subscribe, then read the heads and report `connected(heads:now:)` (or
        /// `connectFailed(now:)`).
        case connect
        /// Hand `changes` to the node in order, then acknowledge them to the store: a writer
        /// waits for that acknowledgement before it answers.
        case relayAndAcknowledge([StoreChange])
        /// Send a query the server must answer, which records that the listener is alive.
        case sendHeartbeat
        /// Close the connection after a failure (log `reason`, count a reconnect).
        case drop(reason: String)
        /// Close the connection quietly (stopped).
        case close
    }

    /// Longest pause between two attempts to connect.
    static let maxRetryDelayMillis: Int64 = 8_000

    /// How long a heartbeat's answer may take.
    let heartbeatMillis: Int64
    /// From one heartbeat to the next.
    let heartbeatIntervalMillis: Int64
    private(set) var state = State.idle
    /// The newest version relayed per template: after a connect, only what moved is relayed.
    private(set) var knownHeads: [TemplateKey: Int64]
    /// The pause before the next attempt: none after a loss, then 1, 2, 4 and at most 8 s.
    private(set) var retryDelayMillis: Int64 = 0

    /// - Parameters:
    ///   - knownHeads: the versions the node loaded before it listened.
    ///   - heartbeatMillis: how long a heartbeat's answer may take.
    ///   - heartbeatIntervalMillis: from one heartbeat to the next.
    init(knownHeads: [TemplateKey: Int64], heartbeatMillis: Int64,
         heartbeatIntervalMillis: Int64 = Int64(ListenerLiveness.heartbeatInterval / .milliseconds(1))) {
        self.knownHeads = knownHeads
        self.heartbeatMillis = max(1, heartbeatMillis)
        self.heartbeatIntervalMillis = max(1, heartbeatIntervalMillis)
    }

    mutating func start() -> [Action] {
        guard state == .idle else { return [] }
        state = .connecting
        return [.connect]
    }

    /// The connection listens and `heads` were read after it did: relay what moved since the
    /// node last knew, and the projects and access records (they may have moved too), then
    /// acknowledge.
    mutating func connected(heads: [TemplateKey: Int64], now: Int64) -> [Action] {
        guard state == .connecting else { return [.close] }
        // Connecting recorded the listener as alive: the first heartbeat is an interval later.
        state = .listening(heartbeatDue: now + heartbeatIntervalMillis, heartbeatSentAt: nil)
        let moved = heads.filter { key, version in (knownHeads[key] ?? 0) < version }
            .sorted { ($0.key.project, $0.key.namespace.rawValue) < ($1.key.project, $1.key.namespace.rawValue) }
        for (key, version) in moved { knownHeads[key] = version }
        return [.relayAndAcknowledge(moved.map { .template($0.key, version: $0.value) } + [.projects, .access])]
    }

    /// The node acknowledged what it was told: the connection works, and a later loss connects
    /// again at once. (A connection whose node never catches up keeps backing off: each attempt
    /// makes the other nodes' writers wait for it.)
    mutating func acknowledged() {
        retryDelayMillis = 0
    }

    mutating func connectFailed(now: Int64) -> [Action] {
        guard state == .connecting else { return [] }
        return backOff(now: now)
    }

    /// The socket brought `changes` (maybe none: a heartbeat's answer, part of a message).
    /// - Parameter heartbeatAnswered: no heartbeat waits for its answer any more.
    mutating func received(_ changes: [StoreChange], heartbeatAnswered: Bool, now: Int64) -> [Action] {
        guard case .listening(let due, let sent) = state else { return [] }
        state = .listening(heartbeatDue: due, heartbeatSentAt: heartbeatAnswered ? nil : sent)
        guard !changes.isEmpty else { return [] }
        for case .template(let key, let version) in changes {
            knownHeads[key] = max(knownHeads[key] ?? 0, version)
        }
        return [.relayAndAcknowledge(changes)]
    }

    /// Receiving, acknowledging or sending a heartbeat failed: the connection is lost.
    mutating func failed(reason: String, now: Int64) -> [Action] {
        guard case .listening = state else { return [] }
        return [.drop(reason: reason)] + backOff(now: now)
    }

    /// Time passed: a heartbeat is due or its answer overdue, or the back-off is over.
    mutating func tick(now: Int64) -> [Action] {
        switch state {
        case .listening(_, let sent?):
            guard now - sent >= heartbeatMillis else { return [] }
            return failed(reason: "no answer to a heartbeat in \(heartbeatMillis) ms", now: now)
        case .listening(let due, nil):
            guard now >= due else { return [] }
            state = .listening(heartbeatDue: now + heartbeatIntervalMillis, heartbeatSentAt: now)
            return [.sendHeartbeat]
        case .backingOff(let until):
            guard now >= until else { return [] }
            state = .connecting
            return [.connect]
        case .idle, .connecting, .stopped:
            return []
        }
    }

    /// When `tick` next has something to do; nil when nothing is timed.
    var nextDeadline: Int64? {
        switch state {
        case .listening(_, let sent?): sent + heartbeatMillis
        case .listening(let due, nil): due
        case .backingOff(let until): until
        case .idle, .connecting, .stopped: nil
        }
    }

    mutating func stop() -> [Action] {
        defer { state = .stopped }
        if case .listening = state { return [.close] }
        return []
    }

    /// Connects again at once after a loss, then waits 1, 2, 4 and at most 8 s between attempts.
    private mutating func backOff(now: Int64) -> [Action] {
        let delay = retryDelayMillis
        retryDelayMillis = min(Self.maxRetryDelayMillis, max(1_000, retryDelayMillis * 2))
        guard delay > 0 else {
            state = .connecting
            return [.connect]
        }
        state = .backingOff(until: now + delay)
        return []
    }
}
