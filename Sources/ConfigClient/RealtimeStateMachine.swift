import Foundation

/// The real-time connection's decisions as a value: events in, actions out, time passed in.
/// `ConfigClient+Realtime` runs the actions (curl streams, timers, fetches); tests drive it with
/// a manual clock.
struct RealtimeStateMachine {
    enum Phase: Equatable {
        case idle
        case connecting(connection: Int)
        case connected(connection: Int, since: TimeInterval)
        /// Between a failure or end of stream and the next connection attempt.
        case waiting
        /// The server sent `featureDisabled`: no reconnects, polling only.
        case disabled
    }

    /// How a stream ended.
    enum StreamEnd: Equatable {
        /// The 200 body ended normally.
        case closed
        /// A non-200 answer; `retryAfter` from the `Retry-After` header.
        case refused(ServerError, retryAfter: TimeInterval?)
        /// No answer, or the connection broke.
        case failed(TransportError)
        /// The body was not a stream of messages.
        case invalid(InvalidationStreamError)
    }

    enum Action: Equatable {
        case connect(connection: Int)
        case disconnect(connection: Int)
        case scheduleReconnect(after: TimeInterval, timer: Int)
        case schedulePoll(after: TimeInterval, timer: Int)
        /// Fetch now; `targetVersion` is the announced version (nil for a periodic poll).
        case fetch(targetVersion: Int64?)
        case report(ConfigUpdateError)
    }

    /// Statuses worth retrying silently (as the Firebase SDKs do); others are reported.
    static let retryableStatuses: Set<Int> = [408, 429, 502, 503, 504]
    /// Consecutive network failures before listeners hear about them.
    static let failuresBeforeReport = 3
    /// A stream that stayed open this long before closing cleanly was healthy.
    static let healthyDuration: TimeInterval = 10

    private(set) var phase = Phase.idle
    private(set) var failures = 0
    private let backoff: Backoff
    private let pollInterval: TimeInterval
    private var random: AnyRandomNumberGenerator
    private var retryAfter: TimeInterval?
    private var receivedMessage = false
    private var errorReported = false
    private var reconnectTimer: Int?
    private var pollTimer: Int?
    private var lastID = 0

    init(backoff: Backoff, pollInterval: TimeInterval, random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.backoff = backoff
        self.pollInterval = pollInterval
        self.random = AnyRandomNumberGenerator(base: random)
    }

    private mutating func nextID() -> Int {
        lastID += 1
        return lastID
    }

    private var currentConnection: Int? {
        switch phase {
        case .connecting(let connection), .connected(let connection, _): connection
        case .idle, .waiting, .disabled: nil
        }
    }

    private mutating func connect() -> [Action] {
        let connection = nextID()
        phase = .connecting(connection: connection)
        receivedMessage = false
        reconnectTimer = nil
        return [.connect(connection: connection)]
    }

    private mutating func startPolling() -> [Action] {
        guard pollTimer == nil else { return [] }
        let timer = nextID()
        pollTimer = timer
        return [.schedulePoll(after: pollInterval, timer: timer)]
    }

    /// The first listener was added.
    mutating func start() -> [Action] {
        phase == .idle ? connect() : []
    }

    /// The last listener was removed: close everything, forget the failure streak.
    mutating func stop() -> [Action] {
        let actions = currentConnection.map { [Action.disconnect(connection: $0)] } ?? []
        phase = .idle
        failures = 0
        retryAfter = nil
        errorReported = false
        reconnectTimer = nil
        pollTimer = nil
        return actions
    }

    /// The status line of `connection` arrived.
    mutating func responseReceived(connection: Int, status: Int, now: TimeInterval) -> [Action] {
        guard phase == .connecting(connection: connection), status == 200 else { return [] }
        phase = .connected(connection: connection, since: now)
        failures = 0
        errorReported = false
        pollTimer = nil
        return []
    }

    /// A message arrived on `connection`; `knownVersion` is the last fetched template version.
    mutating func messageReceived(connection: Int, _ message: InvalidationMessage, knownVersion: Int64) -> [Action] {
        guard currentConnection == connection else { return [] }
        receivedMessage = true
        if message.featureDisabled {
            phase = .disabled
            return [.disconnect(connection: connection), .report(.realtimeDisabled)] + startPolling()
        }
        if let seconds = message.retryIntervalSeconds, seconds > 0 {
            retryAfter = TimeInterval(seconds)
        }
        if let version = message.latestTemplateVersionNumber, version > knownVersion {
            return [.fetch(targetVersion: version)]
        }
        return []
    }

    /// `connection` ended; decides when to reconnect and whether to poll meanwhile.
    mutating func streamEnded(connection: Int, _ end: StreamEnd, now: TimeInterval) -> [Action] {
        guard currentConnection == connection else { return [] }
        var actions: [Action] = []
        switch end {
        case .closed:
            if case .connected(_, let since) = phase, receivedMessage || now - since >= Self.healthyDuration {
                failures = 0
            } else {
                // A 200 that closes at once without a word would otherwise reconnect in a tight loop.
                failures += 1
            }
        case .refused(let error, let serverRetryAfter):
            failures += 1
            if let serverRetryAfter { retryAfter = max(retryAfter ?? 0, serverRetryAfter) }
            if !Self.retryableStatuses.contains(error.httpStatus) {
                actions += reportOnce(.streamRefused(error))
            }
        case .failed(let error):
            failures += 1
            if failures >= Self.failuresBeforeReport { actions += reportOnce(.streamUnavailable(error)) }
        case .invalid(let error):
            failures += 1
            actions += reportOnce(.invalidStream(error))
        }
        let delay = max(backoff.delay(afterFailures: failures, using: &random), retryAfter ?? 0)
        retryAfter = nil
        if failures > 0 { actions += startPolling() }
        guard delay > 0 else { return actions + connect() }
        phase = .waiting
        let timer = nextID()
        reconnectTimer = timer
        return actions + [.scheduleReconnect(after: delay, timer: timer)]
    }

    private mutating func reportOnce(_ error: ConfigUpdateError) -> [Action] {
        guard !errorReported else { return [] }
        errorReported = true
        return [.report(error)]
    }

    mutating func reconnectTimerFired(timer: Int) -> [Action] {
        guard phase == .waiting, reconnectTimer == timer else { return [] }
        return connect()
    }

    mutating func pollTimerFired(timer: Int) -> [Action] {
        guard pollTimer == timer else { return [] }
        pollTimer = nil
        return [.fetch(targetVersion: nil)] + startPolling()
    }
}

/// Lets the state machine hold a generator chosen by the caller (seeded in tests).
struct AnyRandomNumberGenerator: RandomNumberGenerator, Sendable {
    var base: any RandomNumberGenerator & Sendable

    mutating func next() -> UInt64 { base.next() }
}
