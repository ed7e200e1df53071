/// Reads a fault scenario's `History` against the promises of docs/consistency.md and
/// docs/scaling.md, and names every breach with the operations that show it.
struct HistoryChecker {
    let operations: [History.Operation]
    let faults: [History.Fault]
    /// The versions the database holds once everything healed: number → `k`.
    let final: [Int64: String?]
    /// The publish made after healing: its version and when it was acknowledged.
    let probe: (version: Int64, acknowledged: Double)
    /// The nodes that must catch up (those running at the end).
    let nodes: [Int]
    /// How long a node may take to catch up after the fault healed.
    var catchUpSeconds = 5.0
    /// How long a node cut off from the database may take to answer.
    var cutOffAnswerSeconds = 2.0

    func violations() -> [String] {
        acknowledgedPublishesKept() + gapFreeVersions() + oneContentPerVersion() + noStaleReadsAfterAcknowledgement()
            + cutOffNodesAnswer() + everyNodeCatchesUp() + unansweredPublishesWholeOrAbsent()
    }

    private var publishes: [History.Operation] { operations.filter { $0.kind == .publish } }
    private var acknowledged: [History.Operation] { publishes.filter { $0.status == 200 && $0.version != nil } }
    private var reads: [History.Operation] { operations.filter { ($0.kind == .fetch || $0.kind == .sdkFetch) && $0.status == 200 } }

    /// Versions below the oldest one held were pruned by retention (`templates.retention`).
    func acknowledgedPublishesKept() -> [String] {
        let oldestKept = final.keys.min() ?? 0
        return acknowledged.compactMap { publish in
            let version = publish.version ?? 0
            guard version >= oldestKept else { return nil }
            guard let kept = final[version] else { return "acknowledged publish lost: \(publish)" }
            return kept == publish.value ? nil : "version \(version) holds \(kept ?? "nothing"), not what was acknowledged: \(publish)"
        } + Dictionary(grouping: acknowledged, by: { $0.version ?? 0 }).filter { $0.value.count > 1 }.map {
            "version \($0.key) acknowledged to \($0.value.count) publishes: \($0.value)"
        }
    }

    func gapFreeVersions() -> [String] {
        let numbers = final.keys.sorted()
        guard let first = numbers.first, let last = numbers.last else { return [] }
        return numbers == Array(first...last) ? [] : ["versions have gaps: \(numbers)"]
    }

    func oneContentPerVersion() -> [String] {
        reads.compactMap { read in
            guard let version = read.version, let kept = final[version] else { return nil }
            return kept == read.value ? nil : "version \(version) is \(kept ?? "nothing") in the database but was served as: \(read)"
        }
    }

    /// A fetch that began after a publish was acknowledged answers that version or newer,
    /// unless its node was cut off from the database or down at some point since (and up to
    /// `catchUpSeconds` after that fault healed).
    func noStaleReadsAfterAcknowledgement() -> [String] {
        let sortedAcks = acknowledged.sorted { $0.end < $1.end }
        return reads.filter { $0.kind == .fetch }.compactMap { read in
            guard let newest = sortedAcks.last(where: { $0.end < read.start }), let version = newest.version,
                  (read.version ?? 0) < version, !excused(read.node, from: newest.end, to: read.end)
            else { return nil }
            return "stale read: \(read) began after version \(version) was acknowledged (\(newest))"
        }
    }

    private func excused(_ node: Int, from start: Double, to end: Double) -> Bool {
        faults.contains { fault in
            fault.nodes.contains(node) && fault.effect != .degraded && fault.start <= end && fault.healed + catchUpSeconds >= start
        }
    }

    /// What a node cut off from the database is asked (from half a second in, until healed)
    /// it answers within `cutOffAnswerSeconds`: every fetch 200, every publish 200 or 503.
    func cutOffNodesAnswer() -> [String] {
        faults.filter { $0.effect == .cutOff }.flatMap { fault in
            operations.filter { operation in
                fault.nodes.contains(operation.node) && operation.start >= fault.start + 0.5 && operation.start <= fault.healed
                    && (operation.kind == .fetch || operation.kind == .publish)
            }.compactMap { operation in
                let allowed: Set<Int> = operation.kind == .fetch ? [200] : [200, 503]
                guard let status = operation.status, allowed.contains(status), operation.end - operation.start <= cutOffAnswerSeconds
                else { return "during \(fault.name), a node cut off from the database answered badly or late: \(operation)" }
                return nil
            }
        }
    }

    /// After the last fault healed, every node serves the newest version acknowledged before
    /// it healed, and the probe's, within `catchUpSeconds`; every node's held streams are told.
    func everyNodeCatchesUp() -> [String] {
        let healed = faults.map(\.healed).max() ?? 0
        let beforeHealing = acknowledged.filter { $0.end <= healed }.compactMap(\.version).max() ?? 0
        var found: [String] = []
        for node in nodes {
            let fetched = reads.filter { $0.node == node && $0.kind == .fetch }
            if !fetched.contains(where: { $0.end <= healed + catchUpSeconds && ($0.version ?? 0) >= beforeHealing }) {
                found.append("node \(node) did not serve version \(beforeHealing) within \(catchUpSeconds) s of healing")
            }
            if !fetched.contains(where: { $0.end <= probe.acknowledged + catchUpSeconds && ($0.version ?? 0) >= probe.version }) {
                found.append("node \(node) did not serve the probe's version \(probe.version) within \(catchUpSeconds) s")
            }
            let told = operations.filter { $0.node == node && $0.kind == .streamNotice }
            if !told.contains(where: { $0.end <= probe.acknowledged + catchUpSeconds && ($0.version ?? 0) >= probe.version }) {
                found.append("the streams of node \(node) were not told of version \(probe.version) within \(catchUpSeconds) s")
            }
        }
        return found
    }

    /// A publish whose client got no answer, or "outcome unknown", is in the database once or
    /// not at all; one refused outright is not there.
    func unansweredPublishesWholeOrAbsent() -> [String] {
        let held = final.values.compactMap { $0 }
        return publishes.filter { $0.status != 200 }.compactMap { publish in
            let copies = held.filter { $0 == publish.value }.count
            let uncertain = publish.status == nil || publish.outcomeUnknown
            if uncertain ? copies > 1 : copies > 0 {
                return "a publish answered \(publish.status.map(String.init) ?? "nothing") is in the database \(copies) time(s): \(publish)"
            }
            return nil
        }
    }
}
