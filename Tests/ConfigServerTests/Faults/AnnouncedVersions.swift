/// The stream notices of a history, for finding the newest version a node announced before a
/// time without scanning every notice for every read.
struct AnnouncedVersions {
    /// Per node, by time: each notice and the one of the newest version up to it.
    private var byNode: [Int: [(end: Double, newest: History.Operation)]] = [:]

    init(_ notices: [History.Operation]) {
        for (node, told) in Dictionary(grouping: notices, by: \.node) {
            var newest: History.Operation?
            byNode[node] = told.sorted { $0.end < $1.end }.map { notice in
                if (notice.version ?? 0) > (newest?.version ?? -1) { newest = notice }
                return (notice.end, newest ?? notice)
            }
        }
    }

    /// The notice of the newest version on `node` received at or before `time`.
    func newest(on node: Int, before time: Double) -> History.Operation? {
        guard let told = byNode[node] else { return nil }
        var (low, high) = (0, told.count)  // the first notice after `time`
        while low < high {
            let middle = (low + high) / 2
            if told[middle].end <= time { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : told[low - 1].newest
    }
}
