import ConfigStore

/// How many held clients and recent fetches are on each template version of each template,
/// so an operator can watch a publish spread (loop thread only).
final class AdoptionStats {
    /// Fetches are counted over this window.
    static let fetchWindowSeconds: Int64 = 600
    private var held: [TemplateKey: [Int64: Int]] = [:]
    /// Fetch counts per template, version and minute of the window.
    private var fetches: [FetchSlot: Int] = [:]
    /// Fetches of the slot counted last and not yet added to `fetches`: consecutive fetches
    /// mostly share one, so the hot path is a comparison and an increment.
    private var recent: (slot: FetchSlot, count: Int)?

    private struct FetchSlot: Hashable {
        let key: TemplateKey
        let version: Int64
        let minute: Int64
    }

    func held(version: Int64, delta: Int, key: TemplateKey) {
        let count = (held[key]?[version] ?? 0) + delta
        held[key, default: [:]][version] = count == 0 ? nil : count
    }

    func fetched(version: Int64, key: TemplateKey, now: Int64) {
        let slot = FetchSlot(key: key, version: version, minute: now / 60)
        if let recent, recent.slot == slot {
            self.recent = (slot, recent.count + 1)
            return
        }
        flushRecent()
        recent = (slot, 1)
    }

    private func flushRecent() {
        guard let recent else { return }
        fetches[recent.slot, default: 0] += recent.count
        self.recent = nil
    }

    func expireFetches(now: Int64) {
        guard now % 60 == 0 else { return }
        flushRecent()
        let oldest = (now - Self.fetchWindowSeconds) / 60
        fetches = fetches.filter { $0.key.minute > oldest }
    }

    /// This worker's held clients and recent fetches per version of one template.
    func counts(key: TemplateKey) -> AdoptionCounts {
        var counts = AdoptionCounts()
        for (version, count) in held[key] ?? [:] { counts.versions[version, default: .init()].heldClients += count }
        flushRecent()
        for (slot, count) in fetches where slot.key == key {
            counts.versions[slot.version, default: .init()].recentFetches += count
        }
        return counts
    }
}

/// Held clients and recent fetches per template version, of one worker or summed over several.
struct AdoptionCounts: Equatable {
    struct Row: Equatable {
        var heldClients = 0
        var recentFetches = 0
    }

    var versions: [Int64: Row] = [:]

    init() {}

    static func + (lhs: AdoptionCounts, rhs: AdoptionCounts) -> AdoptionCounts {
        var sum = lhs
        for (version, row) in rhs.versions {
            sum.versions[version, default: Row()].heldClients += row.heldClients
            sum.versions[version, default: Row()].recentFetches += row.recentFetches
        }
        return sum
    }

    /// `version held fetches` lines, for a peer's answer.
    var encoded: [UInt8] {
        Array(versions.map { "\($0.key) \($0.value.heldClients) \($0.value.recentFetches)\n" }.joined().utf8)
    }

    init?(encoded: [UInt8]) {
        for line in String(decoding: encoded, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, let version = Int64(fields[0]), let held = Int(fields[1]), let fetches = Int(fields[2])
            else { return nil }
            versions[version] = Row(heldClients: held, recentFetches: fetches)
        }
    }

    /// `{"currentVersion":"7","fetchWindowSeconds":600,"workers":2,"workersReporting":2,
    /// "versions":[{"versionNumber":"7","heldClients":3,"recentFetches":10}, …]}`, newest first.
    ///
    /// While a canary runs, `"stable"` and `"canary"` split the clients between the active
    /// version and the canary's: `{"versionNumber":"8","percent":5,"heldClients":…,"recentFetches":…}`.
    func json(currentVersion: Int64, canary: (version: Int64, percent: Double)? = nil, workersReporting: Int, workers: Int) -> [UInt8] {
        func row(_ version: Int64, percent: Double? = nil) -> String {
            let counts = versions[version] ?? Row()
            return "{\"versionNumber\":\"\(version)\"" + (percent.map { ",\"percent\":\($0)" } ?? "")
                + ",\"heldClients\":\(counts.heldClients),\"recentFetches\":\(counts.recentFetches)}"
        }
        let rows = versions.keys.sorted(by: >).map { row($0) }
        let split = canary.map { ",\"stable\":\(row(currentVersion)),\"canary\":\(row($0.version, percent: $0.percent))" } ?? ""
        return Array(("{\"currentVersion\":\"\(currentVersion)\",\"fetchWindowSeconds\":\(AdoptionStats.fetchWindowSeconds),"
            + "\"workers\":\(workers),\"workersReporting\":\(workersReporting)" + split
            + ",\"versions\":[" + rows.joined(separator: ",") + "]}").utf8)
    }
}
