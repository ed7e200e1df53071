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

    /// `{"currentVersion":"7","versions":[{"versionNumber":"7","heldClients":3,"recentFetches":10}, …]}`
    func json(key: HeadKey, currentVersion: Int64) -> [UInt8] {
        let heldByVersion = held[key] ?? [:]
        let fetchesByVersion = (fetches[key] ?? [:]).mapValues { $0.values.reduce(0, +) }
        let versions = Set(heldByVersion.keys).union(fetchesByVersion.keys).sorted(by: >)
        let rows = versions.map { version in
            "{\"versionNumber\":\"\(version)\",\"heldClients\":\(heldByVersion[version] ?? 0),\"recentFetches\":\(fetchesByVersion[version] ?? 0)}"
        }
        return Array(("{\"currentVersion\":\"\(currentVersion)\",\"fetchWindowSeconds\":\(Self.fetchWindowSeconds),"
            + "\"versions\":[" + rows.joined(separator: ",") + "]}").utf8)
    }
}
