import Foundation
import Glibc
import TestSupport

/// One fault, injected into a running `FaultCluster` while the `Workload` runs, then healed;
/// the run records it in the history and ends with a probe publish after healing.
struct FaultScenario: Sendable, CustomStringConvertible {
    enum Fault: String, Sendable, CaseIterable {
        /// Node 0's link to the database goes silent.
        case nodeCutOff
        /// Every node's link goes silent.
        case databaseCutOff
        /// Node 0's link gets 30 ms of delay and 10 % of its chunks a further 200 ms.
        case degradedLink
        /// Every process of the database is stopped (SIGSTOP), then continued.
        case databasePaused
        /// Node 1 is killed (-9) during publishes, then started again.
        case nodeKilled
        /// A worker of node 0 is killed (-9); its supervisor starts another.
        case workerKilled
        /// Node 0's link goes silent the moment it carries a COMMIT.
        case commitLost
        /// Node 0's link gets 200 ms of delay each way and 5 % of its chunks 0.2–1 s more.
        case slowLink
        /// Node 1's link goes silent, node 1 is killed (-9) and its connections are abandoned
        /// open, so that the database never learns it is gone; then it is started again.
        case vanishedHost
        /// PostgreSQL is stopped (immediate shutdown), then started again on its data.
        case databaseRestarted

        /// How long the fault must last for what it does to show: a slow link's store reads
        /// pile up behind each other over several polls (in 3 s nothing was seen, in 8 s fetches
        /// of 3 s and more); the other nodes must be seen publishing normally again after a
        /// vanished one (`vanishedForgottenSeconds`).
        var minimumHoldSeconds: Double {
            switch self {
            case .slowLink: 8
            case .vanishedHost: HistoryChecker.vanishedForgottenSeconds + 2.5
            default: 0
            }
        }
    }

    var fault: Fault
    var seed: UInt64
    /// How long the fault lasts (seconds).
    var holdSeconds: Double

    var description: String { "\(fault.rawValue) (seed \(seed), \(String(format: "%.1f", holdSeconds)) s)" }

    /// The fault with a duration drawn from `seed` in `holdSeconds` (2 to 4 s: the short form).
    init(_ fault: Fault, seed: UInt64, holdSeconds range: ClosedRange<Double> = 2...4) {
        var random = SplitMix64(seed: seed)
        self.fault = fault
        self.seed = seed
        holdSeconds = range.lowerBound + Double(random.next() % 1000) / 1000 * (range.upperBound - range.lowerBound)
        holdSeconds = max(holdSeconds, fault.minimumHoldSeconds)
    }

    /// A fault and a duration both drawn from `seed` (the long form: up to `maximumHold` s, so
    /// that a silent link outlasts the listener's heartbeat).
    static func random(seed: UInt64, maximumHold: Double) -> FaultScenario {
        var random = SplitMix64(seed: seed ^ 0x5EED)
        let fault = Fault.allCases[Int(random.next() % UInt64(Fault.allCases.count))]
        return FaultScenario(fault, seed: seed, holdSeconds: 2...max(2, maximumHold))
    }

    /// What a run saw, for the checker and the log.
    struct Outcome {
        var history: History
        var violations: [String]
        var seconds: Double

        var summary: String {
            let operations = history.operations
            let publishes = operations.filter { $0.kind == .publish }
            let counts = Dictionary(grouping: publishes, by: { $0.outcomeUnknown ? "unknown" : $0.status.map(String.init) ?? "none" })
                .mapValues(\.count).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            func slowest(_ kinds: Set<History.Kind>) -> String {
                let seconds = operations.filter { kinds.contains($0.kind) && $0.status != nil }.map { $0.end - $0.start }.max() ?? 0
                return String(format: "%.2f s", seconds)
            }
            return "\(operations.count) operations, publishes \(counts), "
                + "\(operations.filter { $0.kind == .fetch || $0.kind == .sdkFetch }.count) fetches, "
                + "\(operations.filter { $0.kind == .streamNotice }.count) stream notices, slowest answered fetch "
                + "\(slowest([.fetch, .sdkFetch])) and publish \(slowest([.publish])), \(violations.count) violations, "
                + String(format: "%.1f s", seconds)
        }
    }

    /// Starts two nodes, runs the workload through the fault and its healing, and checks.
    func run() throws -> Outcome {
        let started = Date()
        let cluster = try FaultCluster(nodes: 2, seed: seed)
        defer { cluster.shutDown() }
        guard publishUntilAcknowledged(cluster.nodes[0], "s\(seed)-initial", within: 10) != nil else {
            throw TestFailure("the first publish failed")
        }
        let history = History()
        let workload = Workload(history: history, nodes: cluster.nodes, seed: seed)
        workload.start()
        var workloadStopped = false
        defer { if !workloadStopped { workload.stop() } }
        pause(seconds: 1.5)

        // The fault begins when its injection does: stopping the database or killing a node
        // takes a while, and what the nodes answer meanwhile already meets the fault.
        let start = history.now
        let (effect, nodes) = try inject(into: cluster)
        pause(seconds: holdSeconds)
        try heal(cluster)
        history.record(History.Fault(name: fault.rawValue, effect: effect, nodes: nodes, start: start, healed: history.now))

        guard let probe = publishUntilAcknowledged(cluster.nodes[0], "s\(seed)-probe", within: 15, history: history) else {
            throw TestFailure("no publish was acknowledged within 15 s of healing")
        }
        waitUntilCaughtUp(history, nodes: cluster.nodes.count, version: probe.version, until: probe.acknowledged + 6)
        workload.stop()
        workloadStopped = true
        let checker = HistoryChecker(operations: history.operations, faults: history.faults, final: try cluster.storedVersions(),
                                     probe: probe, nodes: Array(cluster.nodes.indices))
        let violations = checker.violations()
        if !violations.isEmpty || ProcessInfo.processInfo.environment["RCS_FAULTS_ALWAYS"] != nil, ProcessInfo.processInfo.environment["RCS_FAULTS_LOGS"] != nil {
            for (index, daemon) in cluster.daemons.enumerated() { print("node \(index) log:\n\((try? daemon?.log(containing: "remote-config-server")) ?? "")") }
            print("slow operations:", history.operations.filter { $0.end - $0.start > 1.6 }.map(\.description))
        }
        return Outcome(history: history, violations: violations, seconds: Date().timeIntervalSince(started))
    }

    private func inject(into cluster: FaultCluster) throws -> (History.Fault.Effect, Set<Int>) {
        let every = Set(cluster.nodes.indices)
        switch fault {
        case .nodeCutOff:
            cluster.links[0].set(.silent)
            return (.cutOff, [0])
        case .databaseCutOff:
            cluster.links.forEach { $0.set(.silent) }
            return (.cutOff, every)
        case .degradedLink:
            cluster.links[0].set(.degraded(delay: .milliseconds(30), lossPercent: 10))
            return (.degraded, [0])
        case .databasePaused:
            cluster.signalDatabase(SIGSTOP)
            return (.cutOff, every)
        case .nodeKilled:
            cluster.kill(1)
            return (.down, [1])
        case .workerKilled:
            try cluster.killWorker(of: 0)
            return (.degraded, [0])
        case .commitLost:
            cluster.links[0].silence(whenClientSends: "COMMIT")
            return (.cutOff, [0])
        case .slowLink:
            cluster.links[0].set(.degraded(delay: .milliseconds(200), lossPercent: 5,
                                           retransmission: .milliseconds(200) ... .milliseconds(1000)))
            return (.degraded, [0])
        case .vanishedHost:
            cluster.links[1].set(.silent)
            pause(seconds: 0.3)  // the host goes dark first: what it was sending is held
            cluster.kill(1)
            cluster.links[1].vanish()
            return (.vanished, [1])
        case .databaseRestarted:
            try cluster.haltDatabase()
            return (.cutOff, every)
        }
    }

    private func heal(_ cluster: FaultCluster) throws {
        switch fault {
        case .nodeCutOff, .databaseCutOff, .degradedLink, .commitLost, .slowLink:
            cluster.links.forEach { $0.set(.healthy) }
        case .databaseRestarted:
            try cluster.resumeDatabase()
        case .databasePaused:
            cluster.signalDatabase(SIGCONT)
        case .nodeKilled, .vanishedHost:
            try cluster.restart(1)
        case .workerKilled:
            break
        }
    }

    /// Publishes until one is acknowledged: its version and when (history time); every try
    /// recorded in `history` when given.
    private func publishUntilAcknowledged(_ node: Workload.Node, _ value: String, within seconds: Double,
                                          history: History? = nil) -> (version: Int64, acknowledged: Double)? {
        let acknowledged = NodeCalls.publishUntilAcknowledged({ node.port }, value, within: seconds) { value, answer in
            // Timed from its answer back: tries are 100 ms apart, so the end of the last one is
            // not the start of the next.
            let end = history?.now ?? 0
            history?.record(History.Operation(
                kind: .publish, node: node.index, start: end - answer.seconds, end: end, status: answer.status,
                outcomeUnknown: answer.outcomeUnknown, version: answer.version, value: value))
        }
        guard let acknowledged, let version = acknowledged.version else { return nil }
        return (version, (history?.now ?? 0))
    }

    /// Until every node fetched and was told of `version`, or `until` (history time) passed.
    private func waitUntilCaughtUp(_ history: History, nodes: Int, version: Int64, until: Double) {
        history.wait(until: until) { operations in
            let seen = operations.filter { ($0.version ?? 0) >= version }
            return (0..<nodes).allSatisfy { node in
                seen.contains { $0.node == node && $0.kind == .fetch } && seen.contains { $0.node == node && $0.kind == .streamNotice }
            }
        }
    }

    /// How long the workload runs before the fault, and the fault lasts: time itself.
    private func pause(seconds: Double) { letTimePass(seconds: seconds) }
}
