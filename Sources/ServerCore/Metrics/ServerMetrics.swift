package import ConfigStore
import ConfigCore
import Synchronization

/// Counters and gauges of one worker, exposed in Prometheus text format at `/metrics`.
package final class ServerMetrics: Sendable {
    private struct State {
        /// The labels counted, by their number (empty for one not counted yet).
        var routes: [String] = []
        /// Requests answered, by route label number, then by status in the order first seen.
        var requests: [[(status: Int, count: Int)]] = []
        /// Answer times by route label number; a route with none has an empty histogram.
        var latency: [Histogram] = []
        var held = 0
        var invalidations = 0
        var refusals = 0
        var staleExceptions = 0
        var publishes = 0
        var fetches = 0
        var unchangedFetches = 0
        var answerCacheHits = 0
        var throttled = 0
        var canaryFetches = 0
        var canaryInvalidations = 0
        var storeAvailable = true
        /// Nil when the store needs no listener (SQLite).
        var listenerConnected: Bool?
        var listenerReconnects = 0
        /// The node's workers could not read what its listener heard in time (CatchUpBoard).
        var nodeBehind = false
        /// Per template, as the last usage review found it (set on each node's leader only).
        var parameterStates: [TemplateKey: ParameterStates]?

        /// Names `route`'s slot, made first if need be (once per label: the table's are few).
        mutating func name(_ route: RouteLabel) {
            let missing = route.index + 1 - routes.count
            if missing > 0 {
                routes += [String](repeating: "", count: missing)
                requests += [[(status: Int, count: Int)]](repeating: [], count: missing)
                latency += [Histogram](repeating: Histogram(), count: missing)
            }
            routes[route.index] = route.name
        }
    }

    struct Histogram {
        static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
        /// Samples by the first bound they are within (the bounds ascend); the exposition's
        /// buckets are cumulative, their running sums.
        var withinFirst = [Int](repeating: 0, count: bounds.count)
        var count = 0
        var sum = 0.0

        mutating func observe(_ seconds: Double) {
            if let index = Self.bounds.firstIndex(where: { seconds <= $0 }) { withinFirst[index] += 1 }
            count += 1
            sum += seconds
        }

        /// Samples within each bound, in the order of `bounds`.
        var buckets: [Int] {
            var total = 0
            return withinFirst.map { count in
                total += count
                return total
            }
        }
    }

    private let state = Mutex(State())
    let worker: Int

    package init(worker: Int) {
        self.worker = worker
    }

    func recordRequest(route: RouteLabel, status: Int, seconds: Double? = nil) {
        state.withLock { state in
            if route.index >= state.routes.count || state.routes[route.index].isEmpty { state.name(route) }
            let route = route.index
            if let index = state.requests[route].firstIndex(where: { $0.status == status }) {
                state.requests[route][index].count += 1
            } else {
                state.requests[route].append((status, 1))
            }
            if let seconds { state.latency[route].observe(seconds) }
        }
    }

    func setHeld(_ count: Int) { state.withLock { $0.held = count } }
    func recordInvalidations(_ count: Int) { state.withLock { $0.invalidations += count } }
    func recordRefusal() { state.withLock { $0.refusals += 1 } }
    func recordStaleException() { state.withLock { $0.staleExceptions += 1 } }
    func recordPublish() { state.withLock { $0.publishes += 1 } }
    package func recordThrottled() { state.withLock { $0.throttled += 1 } }
    func recordAnswerCacheHit() { state.withLock { $0.answerCacheHits += 1 } }

    func recordFetch(unchanged: Bool, canary: Bool = false) {
        state.withLock { state in
            state.fetches += 1
            if unchanged { state.unchangedFetches += 1 }
            if canary { state.canaryFetches += 1 }
        }
    }

    func recordCanaryInvalidations(_ count: Int) { state.withLock { $0.canaryInvalidations += count } }
    func setStoreAvailable(_ available: Bool) { state.withLock { $0.storeAvailable = available } }
    func setListenerConnected(_ connected: Bool) { state.withLock { $0.listenerConnected = connected } }
    func setNodeBehind(_ behind: Bool) { state.withLock { $0.nodeBehind = behind } }

    /// How many parameters of a template are stale and unevaluated (docs/insights.md).
    package struct ParameterStates: Sendable, Equatable {
        package var stale: Int
        package var unevaluated: Int

        package init(stale: Int, unevaluated: Int) {
            self.stale = stale
            self.unevaluated = unevaluated
        }
    }

    /// What the usage review found, per template: exposed from now on by this worker.
    package func setParameterStates(_ states: [TemplateKey: ParameterStates]) { state.withLock { $0.parameterStates = states } }
    func recordListenerReconnect() { state.withLock { $0.listenerReconnects += 1 } }

    /// This worker's exposition text (format 0.0.4); `Exposition.merge` joins the workers'.
    func render() -> String {
        let state = state.withLock { $0 }
        let worker = "worker=\"\(worker)\""
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (labels, value) in samples {
                out += "\(name){\(labels.isEmpty ? worker : "\(worker),\(labels)")} \(value)\n"
            }
        }
        let requests = state.routes.indices.flatMap { label in
            state.requests[label].map { (route: state.routes[label], status: $0.status, count: $0.count) }
        }
        metric("rcs_http_requests_total", "counter", "HTTP requests by route and status.",
               requests.sorted { ($0.route, $0.status) < ($1.route, $1.status) }
                   .map { ("route=\"\($0.route)\",status=\"\($0.status)\"", "\($0.count)") })
        out += "# HELP rcs_http_request_duration_seconds Time to answer, by route.\n# TYPE rcs_http_request_duration_seconds histogram\n"
        let latency = zip(state.routes, state.latency).map { (route: $0, histogram: $1) }.filter { $0.histogram.count > 0 }
        for (route, histogram) in latency.sorted(by: { $0.route < $1.route }) {
            let buckets = histogram.buckets
            for (index, bound) in Histogram.bounds.enumerated() {
                out += "rcs_http_request_duration_seconds_bucket{\(worker),route=\"\(route)\",le=\"\(bound)\"} \(buckets[index])\n"
            }
            out += "rcs_http_request_duration_seconds_bucket{\(worker),route=\"\(route)\",le=\"+Inf\"} \(histogram.count)\n"
            out += "rcs_http_request_duration_seconds_sum{\(worker),route=\"\(route)\"} \(histogram.sum)\n"
            out += "rcs_http_request_duration_seconds_count{\(worker),route=\"\(route)\"} \(histogram.count)\n"
        }
        metric("rcs_realtime_held_connections", "gauge", "Real-time streams held open.", [("", "\(state.held)")])
        metric("rcs_realtime_invalidations_total", "counter", "Invalidation messages sent.", [("", "\(state.invalidations)")])
        metric("rcs_realtime_refusals_total", "counter", "Fresh clients refused at the cap.", [("", "\(state.refusals)")])
        metric("rcs_realtime_stale_exceptions_total", "counter", "Stale clients served at the cap, then closed.", [("", "\(state.staleExceptions)")])
        metric("rcs_publishes_total", "counter", "Versions published (including rollbacks).", [("", "\(state.publishes)")])
        metric("rcs_fetches_total", "counter", "Client fetches answered.", [("", "\(state.fetches)")])
        metric("rcs_fetches_unchanged_total", "counter", "Fetches answered NO_CHANGE.", [("", "\(state.unchangedFetches)")])
        metric("rcs_fetch_answer_cache_hits_total", "counter", "Fetches answered from the outcome-vector cache.", [("", "\(state.answerCacheHits)")])
        metric("rcs_fetches_throttled_total", "counter", "Fetches refused by the per-instance throttle.", [("", "\(state.throttled)")])
        metric("rcs_canary_fetches_total", "counter", "Fetches answered with a running canary's version.", [("", "\(state.canaryFetches)")])
        metric("rcs_canary_invalidations_total", "counter", "Invalidation messages announcing a canary version.",
               [("", "\(state.canaryInvalidations)")])
        metric("rcs_store_available", "gauge", "1 when the store answered this worker's last poll, 0 while it cannot be read.",
               [("", state.storeAvailable ? "1" : "0")])
        if let connected = state.listenerConnected {
            metric("rcs_store_listener_connected", "gauge", "1 while the node's notification connection to the store is up.",
                   [("", connected ? "1" : "0")])
            metric("rcs_store_listener_reconnects_total", "counter", "Notification connections lost and made again.",
                   [("", "\(state.listenerReconnects)")])
            metric("rcs_node_behind", "gauge",
                   "1 while the node's workers cannot read what the store announced in time: it acknowledges nothing and takes no writes.",
                   [("", state.nodeBehind ? "1" : "0")])
        }
        if let states = state.parameterStates {
            let templates = states.sorted { ($0.key.project, $0.key.namespace.rawValue) < ($1.key.project, $1.key.namespace.rawValue) }
            func labels(_ key: TemplateKey) -> String {
                "project=\"\(key.project)\",environment=\"\(key.namespace.environment.rawValue)\",namespace=\"\(key.namespace.kind.rawValue)\""
            }
            metric("rcs_parameters_stale", "gauge", "Parameters stale by their project's rule, as the node's last usage review found.",
                   templates.map { (labels($0.key), "\($0.value.stale)") })
            metric("rcs_parameters_unevaluated", "gauge", "Parameters no client evaluated since they were published, at the last review.",
                   templates.map { (labels($0.key), "\($0.value.unevaluated)") })
        }
        return out
    }
}
