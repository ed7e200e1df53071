import ConfigStore

/// How many held clients and recent fetches are on each template version of each template,
/// so an operator can watch a publish spread (loop thread only).
///
/// A held stream counts on the version it was last *told* of, which it may not have fetched
/// yet; what clients *fetched* is counted apart: fetches per version and minute, and the app
/// instances whose latest fetch in the window got each version.
final class AdoptionStats {
    /// Fetches are counted over this window.
    static let fetchWindowSeconds: Int64 = 600
    /// Instances remembered per worker; past this, new instances are left uncounted until
    /// older ones leave the window, so a flood of ids cannot grow memory without bound.
    static let maxInstances = 200_000
    private var held: [TemplateKey: [Int64: Int]] = [:]
    /// The version each instance's latest fetch got, and the minute of that fetch.
    private var instances: [TemplateKey: FetchedInstances] = [:]
    /// Fetch counts per template, version and minute of the window.
    private var fetches: [FetchSlot: Int] = [:]
    // The fields every fetch touches go without the run-time exclusivity check (tens of
    // instructions per access): one thread, never overlapping accesses.
    @exclusivity(unchecked) private var instanceCount = 0
    /// Fetches of the slot counted last and not yet added to `fetches`, with its template's
    /// instances: consecutive fetches mostly share one, so the hot path is a comparison, an
    /// increment and the instance's record.
    @exclusivity(unchecked) private var recent: Recent?

    private struct Recent {
        let slot: FetchSlot
        let instances: FetchedInstances
        var count = 0

        /// Whether fetches of `key`'s `version` in `minute` count here, compared in place.
        func counts(_ key: TemplateKey, version: Int64, minute: Int64) -> Bool {
            slot.version == version && slot.minute == minute && slot.key == key
        }
    }

    private struct FetchSlot: Hashable {
        let key: TemplateKey
        let version: Int64
        let minute: Int64
    }

    func held(version: Int64, delta: Int, key: TemplateKey) {
        let count = (held[key]?[version] ?? 0) + delta
        held[key, default: [:]][version] = count == 0 ? nil : count
    }

    func fetched(version: Int64, key: TemplateKey, instance: String? = nil, now: Int64) {
        let minute = now / 60
        // Not `recent?.slot != FetchSlot(…)`: the optional slot copied out and the slot made,
        // each a copy of the template's key, cost more than the comparison.
        if recent?.counts(key, version: version, minute: minute) != true {
            flushRecent()
            let table = instances[key] ?? FetchedInstances()
            instances[key] = table
            recent = Recent(slot: FetchSlot(key: key, version: version, minute: minute), instances: table)
        }
        recent!.count += 1
        if let instance, !instance.isEmpty,
           recent!.instances.record(hash: FetchedInstances.hash(instance), version: version, minute: minute,
                                    mayAdd: instanceCount < Self.maxInstances) {
            instanceCount += 1
        }
    }

    private func flushRecent() {
        guard let recent else { return }
        if recent.count > 0 { fetches[recent.slot, default: 0] += recent.count }
        self.recent = nil
    }

    func expireFetches(now: Int64) {
        guard now % 60 == 0 else { return }
        flushRecent()
        let oldest = (now - Self.fetchWindowSeconds) / 60
        fetches = fetches.filter { $0.key.minute > oldest }
        for table in instances.values { table.forget(upToMinute: oldest) }
        instances = instances.filter { $0.value.count > 0 }
        instanceCount = instances.values.reduce(0) { $0 + $1.count }
    }

    /// This worker's held clients and recent fetches per version of one template.
    func counts(key: TemplateKey) -> AdoptionCounts {
        var counts = AdoptionCounts()
        for (version, count) in held[key] ?? [:] { counts.versions[version, default: .init()].heldClients += count }
        flushRecent()
        for (slot, count) in fetches where slot.key == key {
            counts.versions[slot.version, default: .init()].recentFetches += count
            counts.minutes[slot.minute, default: [:]][slot.version, default: 0] += count
        }
        for (version, clients) in instances[key]?.clientsPerVersion() ?? [:] {
            counts.versions[version, default: .init()].fetchedClients += clients
        }
        return counts
    }
}

/// Held clients and recent fetches per template version, of one worker or summed over several.
struct AdoptionCounts: Equatable {
    struct Row: Equatable {
        /// Held streams last told of the version (they may not have fetched it yet).
        var heldClients = 0
        var recentFetches = 0
        /// App instances whose latest fetch in the window got the version.
        var fetchedClients = 0
    }

    var versions: [Int64: Row] = [:]
    /// Fetches per minute (of the loop's clock) and version, over the window.
    var minutes: [Int64: [Int64: Int]] = [:]

    init() {}

    static func + (lhs: AdoptionCounts, rhs: AdoptionCounts) -> AdoptionCounts {
        var sum = lhs
        for (version, row) in rhs.versions {
            sum.versions[version, default: Row()].heldClients += row.heldClients
            sum.versions[version, default: Row()].recentFetches += row.recentFetches
            sum.versions[version, default: Row()].fetchedClients += row.fetchedClients
        }
        for (minute, byVersion) in rhs.minutes {
            for (version, count) in byVersion { sum.minutes[minute, default: [:]][version, default: 0] += count }
        }
        return sum
    }

    /// `version held fetches clients` lines, then `m minute version fetches` lines, for a peer's answer.
    var encoded: [UInt8] {
        let rows = versions.map { "\($0.key) \($0.value.heldClients) \($0.value.recentFetches) \($0.value.fetchedClients)\n" }
        let history = minutes.flatMap { minute, byVersion in byVersion.map { "m \(minute) \($0.key) \($0.value)\n" } }
        return Array((rows + history).joined().utf8)
    }

    init?(encoded: [UInt8]) {
        for line in String(decoding: encoded, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 4, fields[0] == "m" {
                guard let minute = Int64(fields[1]), let version = Int64(fields[2]), let count = Int(fields[3]) else { return nil }
                minutes[minute, default: [:]][version] = count
                continue
            }
            guard fields.count == 4, let version = Int64(fields[0]), let held = Int(fields[1]), let fetches = Int(fields[2]),
                  let clients = Int(fields[3])
            else { return nil }
            versions[version] = Row(heldClients: held, recentFetches: fetches, fetchedClients: clients)
        }
    }

    /// `{"currentVersion":"7","fetchWindowSeconds":600,"workers":2,"workersReporting":2,
    /// "versions":[{"versionNumber":"7","heldClients":3,"recentFetches":10,"fetchedClients":4}, …],
    /// "history":[{"minutesAgo":2,"versions":[{"versionNumber":"7","fetches":6}]}, …]}`, newest
    /// version first, oldest minute first. `nowMinute` is the minute (of the loop's clock) the
    /// history is counted back from.
    ///
    /// While a canary runs, `"stable"` and `"canary"` split the clients between the active
    /// version and the canary's: `{"versionNumber":"8","percent":5,"heldClients":…,"recentFetches":…}`.
    func json(currentVersion: Int64, canary: (version: Int64, percent: Double)? = nil, workersReporting: Int, workers: Int,
              nowMinute: Int64? = nil) -> [UInt8] {
        func row(_ version: Int64, percent: Double? = nil) -> String {
            let counts = versions[version] ?? Row()
            return "{\"versionNumber\":\"\(version)\"" + (percent.map { ",\"percent\":\($0)" } ?? "")
                + ",\"heldClients\":\(counts.heldClients),\"recentFetches\":\(counts.recentFetches)"
                + ",\"fetchedClients\":\(counts.fetchedClients)}"
        }
        let rows = versions.keys.sorted(by: >).map { row($0) }
        let split = canary.map { ",\"stable\":\(row(currentVersion)),\"canary\":\(row($0.version, percent: $0.percent))" } ?? ""
        let history = nowMinute.map { now in
            minutes.keys.sorted().map { minute in
                let byVersion = (minutes[minute] ?? [:]).sorted { $0.key > $1.key }
                    .map { "{\"versionNumber\":\"\($0.key)\",\"fetches\":\($0.value)}" }
                return "{\"minutesAgo\":\(max(0, now - minute)),\"versions\":[" + byVersion.joined(separator: ",") + "]}"
            }
        }
        return Array(("{\"currentVersion\":\"\(currentVersion)\",\"fetchWindowSeconds\":\(AdoptionStats.fetchWindowSeconds),"
            + "\"workers\":\(workers),\"workersReporting\":\(workersReporting)" + split
            + ",\"versions\":[" + rows.joined(separator: ",") + "]"
            + (history.map { ",\"history\":[" + $0.joined(separator: ",") + "]" } ?? "") + "}").utf8)
    }
}
