import ConfigStore

/// How many held clients and recent fetches are on each template version of each template,
/// so an operator can watch a publish spread (loop thread only).
final class AdoptionStats {
    /// Fetches are counted over this window.
    static let fetchWindowSeconds: Int64 = 600
    private var held: [HeadKey: [Int64: Int]] = [:]
    /// Per template, per version: fetch counts per minute of the window.
    private var fetches: [HeadKey: [Int64: [Int64: Int]]] = [:]

    func held(version: Int64, delta: Int, key: HeadKey) {
        let count = (held[key]?[version] ?? 0) + delta
        held[key, default: [:]][version] = count == 0 ? nil : count
    }

    func fetched(version: Int64, key: HeadKey, now: Int64) {
        fetches[key, default: [:]][version, default: [:]][now / 60, default: 0] += 1
    }

    func expireFetches(now: Int64) {
        guard now % 60 == 0 else { return }
        let oldest = (now - Self.fetchWindowSeconds) / 60
        for (key, versions) in fetches {
            var kept: [Int64: [Int64: Int]] = [:]
            for (version, minutes) in versions {
                let recent = minutes.filter { $0.key > oldest }
                if !recent.isEmpty { kept[version] = recent }
            }
            fetches[key] = kept.isEmpty ? nil : kept
        }
    }

    /// This worker's held clients and recent fetches per version of one template.
    func counts(key: HeadKey) -> AdoptionCounts {
        var counts = AdoptionCounts()
        for (version, count) in held[key] ?? [:] { counts.versions[version, default: .init()].heldClients += count }
        for (version, minutes) in fetches[key] ?? [:] {
            counts.versions[version, default: .init()].recentFetches += minutes.values.reduce(0, +)
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
    func json(currentVersion: Int64, workersReporting: Int, workers: Int) -> [UInt8] {
        let rows = versions.sorted { $0.key > $1.key }.map { version, row in
            "{\"versionNumber\":\"\(version)\",\"heldClients\":\(row.heldClients),\"recentFetches\":\(row.recentFetches)}"
        }
        return Array(("{\"currentVersion\":\"\(currentVersion)\",\"fetchWindowSeconds\":\(AdoptionStats.fetchWindowSeconds),"
            + "\"workers\":\(workers),\"workersReporting\":\(workersReporting),"
            + "\"versions\":[" + rows.joined(separator: ",") + "]}").utf8)
    }
}
