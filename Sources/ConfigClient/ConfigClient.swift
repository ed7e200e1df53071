public import Foundation
import Synchronization

/// What a call to ``ConfigClient/fetch()`` did.
public enum FetchResult: Sendable, Equatable {
    /// The server sent a config that differs from the last fetched one.
    case updated
    /// The server confirmed the last fetched config.
    case noChange
    /// The last fetch is younger than the minimum fetch interval; no request was made.
    case skipped
}

/// A Remote Config client: fetches the config for this app instance, keeps it in a cache file,
/// activates it on request and answers typed reads that never fail, even with the server down.
/// Thread-safe; reads are cheap (one lock).
public final class ConfigClient: Sendable {
    struct State {
        var defaults: [String: String] = [:]
        var active: FetchedConfig?
        var fetched: FetchedConfig?
        var lastFetchTime: Date?
        var minimumFetchInterval: TimeInterval

        var values: ConfigValues { ConfigValues(remote: active?.entries ?? [:], defaults: defaults, rollouts: active?.rollouts ?? [:]) }
    }

    /// The result of one request to the fetch endpoint, as update listeners need it.
    struct FetchOutcome {
        var result: FetchResult
        var templateVersion: Int64
        /// Keys that read differently in the new fetched config than in the active one; empty
        /// unless the fetched config changed.
        var updatedKeys: Set<String>
    }

    public let configuration: ClientConfiguration
    let transport: any HTTPTransport
    let requests: ClientRequests
    private let cache: ConfigCache
    let state: Mutex<State>
    /// Serialises cache writes so an older snapshot never overwrites a newer one.
    private let persistence = Mutex(())
    private let now: @Sendable () -> Date
    let realtime: Mutex<RealtimeState>
    /// Update listeners run here, one at a time, in order.
    let listenerQueue = DispatchQueue(label: "ConfigClient.listeners")

    /// Creates a client and activates the config fetched during the previous run, if the cache
    /// file has one. Makes no request.
    /// - Parameters:
    ///   - configuration: server, app identity, cache directory and intervals.
    ///   - transport: how requests are sent; libcurl by default.
    public convenience init(configuration: ClientConfiguration, transport: any HTTPTransport = CurlTransport()) {
        self.init(configuration: configuration, transport: transport, now: { Date() })
    }

    init(
        configuration: ClientConfiguration,
        transport: any HTTPTransport,
        now: @escaping @Sendable () -> Date,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.configuration = configuration
        self.transport = transport
        self.now = now
        cache = ConfigCache(directory: configuration.cacheDirectory, project: configuration.project, namespace: configuration.namespace)
        let contents = cache.load()
        let appInstanceId = configuration.appInstanceId ?? contents.appInstanceId ?? UUID().uuidString.lowercased()
        requests = ClientRequests(configuration: configuration, appInstanceId: appInstanceId)
        state = Mutex(State(
            active: contents.fetched,
            fetched: contents.fetched,
            lastFetchTime: contents.lastFetchTime,
            minimumFetchInterval: configuration.minimumFetchInterval
        ))
        realtime = Mutex(RealtimeState(machine: RealtimeStateMachine(
            backoff: configuration.reconnectBackoff,
            pollInterval: configuration.fallbackPollInterval,
            random: random
        )))
        if contents.appInstanceId != appInstanceId { persist() }
    }

    // MARK: Settings and state

    /// Seconds a successful fetch stays fresh; ``fetch()`` within it makes no request.
    public var minimumFetchInterval: TimeInterval {
        get { state.withLock { $0.minimumFetchInterval } }
        set { state.withLock { $0.minimumFetchInterval = newValue } }
    }

    /// The installation id sent with every request (given, or generated and cached).
    public var appInstanceId: String { requests.appInstanceId }

    /// When the last successful fetch happened (this run or a previous one).
    public var lastFetchTime: Date? { state.withLock { $0.lastFetchTime } }

    /// Template version of the last fetched config, 0 if none.
    public var fetchedTemplateVersion: Int64 { state.withLock { $0.fetched?.templateVersion ?? 0 } }

    /// Template version of the active config, 0 if none.
    public var activeTemplateVersion: Int64 { state.withLock { $0.active?.templateVersion ?? 0 } }

    /// Replaces the in-app defaults, used for keys the active config lacks.
    /// - Parameter defaults: key → value.
    public func setDefaults(_ defaults: [String: DefaultValue]) {
        state.withLock { $0.defaults = defaults.mapValues(\.stringValue) }
    }

    // MARK: Fetch and activate

    /// Fetches the config unless the last fetch is younger than ``minimumFetchInterval``.
    /// The result is stored (and cached on disk) but not active until ``activate()``.
    /// - Throws: ``ConfigClientError``; the active and fetched configs stay as they were.
    @discardableResult
    public func fetch() async throws(ConfigClientError) -> FetchResult {
        let fresh = state.withLock { state -> Bool in
            guard state.fetched != nil, let last = state.lastFetchTime else { return false }
            return now().timeIntervalSince(last) < state.minimumFetchInterval
        }
        if fresh { return .skipped }
        return try await fetchNow(type: .base).result
    }

    /// Fetches whatever the interval, as real-time updates and polling do.
    func fetchNow(type: FetchType) async throws(ConfigClientError) -> FetchOutcome {
        let etag = state.withLock { $0.fetched?.etag }
        let response: HTTPResponse
        do {
            response = try await transport.send(requests.fetch(etag: etag, type: type))
        } catch {
            throw .transport(error)
        }
        let answer = try FetchResponse.decode(response)
        let outcome = state.withLock { state in apply(answer, to: &state) }
        persist()
        return outcome
    }

    private func apply(_ answer: FetchResponse, to state: inout State) -> FetchOutcome {
        let previous = state.fetched
        var fetched = previous ?? FetchedConfig(entries: [:], templateVersion: 0, etag: nil)
        switch answer.state {
        case .noChange:
            break
        case .update:
            fetched.entries = answer.entries
            fetched.rollouts = answer.rollouts
        case .noTemplate, .emptyConfig:
            fetched.entries = [:]
            fetched.rollouts = [:]
        }
        fetched.templateVersion = answer.templateVersion
        fetched.etag = answer.etag ?? fetched.etag
        state.fetched = fetched
        state.lastFetchTime = now()
        let changed = previous?.entries != fetched.entries || previous?.rollouts ?? [:] != fetched.rollouts ?? [:]
        let updatedKeys = changed
            ? UpdateDiff.updatedKeys(from: state.values, to: ConfigValues(remote: fetched.entries, defaults: state.defaults, rollouts: fetched.rollouts ?? [:]))
            : []
        return FetchOutcome(result: changed ? .updated : .noChange, templateVersion: fetched.templateVersion, updatedKeys: updatedKeys)
    }

    /// Makes the last fetched config the active one.
    /// - Returns: `true` if the active config changed.
    @discardableResult
    public func activate() -> Bool {
        state.withLock { state in
            guard let fetched = state.fetched, state.active != fetched else { return false }
            state.active = fetched
            return true
        }
    }

    /// Activates only `keys`: each takes its fetched value, or loses its remote value when the
    /// fetched config lacks it. Other keys and the active template version stay as they are.
    /// - Returns: `true` if any of the keys changed.
    @discardableResult
    public func activate(keys: some Sequence<String>) -> Bool {
        state.withLock { state in
            guard let fetched = state.fetched else { return false }
            var active = state.active ?? FetchedConfig(entries: [:], templateVersion: 0, etag: nil)
            for key in keys {
                active.entries[key] = fetched.entries[key]
                if active.rollouts?[key] != fetched.rollouts?[key] {
                    active.rollouts = active.rollouts ?? [:]
                    active.rollouts?[key] = fetched.rollouts?[key]
                }
            }
            defer { state.active = active }
            return active != state.active
        }
    }

    /// ``fetch()`` then ``activate()``.
    /// - Returns: `true` if the active config changed.
    @discardableResult
    public func fetchAndActivate() async throws(ConfigClientError) -> Bool {
        try await fetch()
        return activate()
    }

    /// Writes the fetched config to the cache file. A failed write is not an error for the
    /// caller: the fetched config stays in memory, and the next start simply finds an older one.
    private func persist() {
        persistence.withLock { _ in
            let contents = state.withLock {
                CacheContents(fetched: $0.fetched, lastFetchTime: $0.lastFetchTime, appInstanceId: requests.appInstanceId)
            }
            try? cache.save(contents)
        }
    }
}
