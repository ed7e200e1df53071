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
    /// How long any fetch may take: `store.requestTimeoutSeconds` (1.5 s) and slack.
    var fetchAnswerSeconds = 2.0
    /// How long before its first 503 from `/readyz` a node may already have stopped acknowledging.
    var notReadyGraceSeconds = 0.3
    /// What an acknowledged publish takes when it waits for no one.
    var normalPublishSeconds = 0.5
    /// How soon after a node vanished the others publish normally again.
    static let vanishedForgottenSeconds = 10.0

    func violations() -> [String] {
        acknowledgedPublishesKept() + gapFreeVersions() + oneContentPerVersion() + noStaleReadsAfterAcknowledgement()
            + noReadOlderThanAnnounced() + fetchesAnswerInTime() + cutOffNodesAnswer() + everyNodeCatchesUp()
            + unansweredPublishesWholeOrAbsent() + vanishedNodesAreForgotten()
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

    /// A fetch that began after a publish was acknowledged answers that version or newer. The
    /// promise is that no node serves a version older than one its listener acknowledged: a
    /// publish waits for every node's listener unless that node stopped acknowledging, and a node
    /// that stopped is cut off and says so on `/readyz`. The history cannot see acknowledgements,
    /// so the only excuse is that: the node answered 503 on `/readyz` during the fetch, or within
    /// `notReadyGraceSeconds` after it (`NodeReadiness`). Whatever the fault (slow, lossy,
    /// a worker restarting), a node that kept saying it was ready must have kept up.
    ///
    /// One more excuse, for a node cut off from the database (or down): from the fault's start
    /// until `catchUpSeconds` after it healed. A node cannot know at once that its database went
    /// away, nor can a writer whose database goes away wait for it (such a write is answered
    /// 503 `[OUTCOME_UNKNOWN]`, but one acknowledged an instant before the cut was not yet seen
    /// everywhere), and after healing it catches up within that time (`everyNodeCatchesUp`).
    func noStaleReadsAfterAcknowledgement() -> [String] {
        let sortedAcks = acknowledged.sorted { $0.end < $1.end }
        let readiness = self.readiness
        return reads.compactMap { read in
            guard let newest = sortedAcks.last(where: { $0.end < read.start }), let version = newest.version,
                  (read.version ?? 0) < version, !readiness.notReady(read.node, between: read.start, and: read.end),
                  !cutOff(read.node, at: read.start)
            else { return nil }
            return "stale read: \(read) began after version \(version) was acknowledged (\(newest))"
        }
    }

    /// A fetch that began on a node after one of the node's streams was told of version v
    /// answers v or newer (the node said it had v), with the same two excuses as above (a
    /// worker whose read fails as the database goes away answers from memory).
    func noReadOlderThanAnnounced() -> [String] {
        let notices = AnnouncedVersions(operations.filter { $0.kind == .streamNotice })
        let readiness = self.readiness
        return reads.compactMap { read in
            guard let notice = notices.newest(on: read.node, before: read.start), let version = notice.version,
                  (read.version ?? 0) < version, !readiness.notReady(read.node, between: read.start, and: read.end),
                  !cutOff(read.node, at: read.start)
            else { return nil }
            return "read older than announced: \(read) began after a stream of node \(read.node) was told of \(version) (\(notice))"
        }
    }

    /// Every fetch is answered within `fetchAnswerSeconds`, on any node, whatever the fault.
    func fetchesAnswerInTime() -> [String] {
        operations.filter { ($0.kind == .fetch || $0.kind == .sdkFetch) && $0.end - $0.start > fetchAnswerSeconds }.map {
            "a fetch took more than \(fetchAnswerSeconds) s: \($0)"
        }
    }

    private var readiness: NodeReadiness { NodeReadiness(operations, grace: notReadyGraceSeconds) }

    /// Whether `node` was cut off from the database or down at `time`, or had been until less
    /// than `catchUpSeconds` before.
    private func cutOff(_ node: Int, at time: Double) -> Bool {
        faults.contains { fault in
            (fault.effect == .cutOff || fault.effect == .down) && fault.nodes.contains(node)
                && time >= fault.start && time <= fault.healed + catchUpSeconds
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

    /// Once a node vanished (killed while its connections to the database stay open), the other
    /// nodes' publishes are acknowledged within `normalPublishSeconds` again from
    /// `vanishedForgottenSeconds` on, not all of them wait for it (2 s, `store.acknowledgementSeconds`)
    /// or are refused until the fault ends, and once the node is back, every publish is.
    func vanishedNodesAreForgotten() -> [String] {
        let normal = { (publish: History.Operation) in publish.status == 200 && publish.end - publish.start < normalPublishSeconds }
        return faults.filter { $0.effect == .vanished }.flatMap { fault in
            let peers = publishes.filter { !fault.nodes.contains($0.node) && $0.start >= fault.start && $0.start <= fault.healed }
            var found = peers.filter { $0.start >= fault.start + Self.vanishedForgottenSeconds && !normal($0) }.map {
                "\(Self.vanishedForgottenSeconds) s after \(fault.name), a publish on another node was still slow or refused: \($0)"
            }
            if !peers.isEmpty, !peers.contains(where: normal) {
                found.append("during \(fault.name), none of the other nodes' \(peers.count) publishes was acknowledged in time")
            }
            return found + publishes.filter { $0.start >= fault.healed && !normal($0) }.map {
                "after \(fault.name) healed, a publish was slow or refused: \($0)"
            }
        }
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
