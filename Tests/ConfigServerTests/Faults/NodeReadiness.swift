/// When each node said it could not read the store, from the `/readyz` polls of a history: a
/// window opens `grace` seconds before a 503 (a node stops acknowledging a little before its
/// next poll of the store fails and `/readyz` says so) and closes when the node next answers
/// 200. A poll with no answer says nothing and changes nothing.
struct NodeReadiness {
    private var windows: [Int: [ClosedRange<Double>]] = [:]

    init(_ operations: [History.Operation], grace: Double) {
        let polls = operations.filter { $0.kind == .readiness && $0.status != nil }.sorted { $0.start < $1.start }
        var opened: [Int: Double] = [:]
        for poll in polls {
            if poll.status != 200 {
                if opened[poll.node] == nil { opened[poll.node] = poll.start - grace }
            } else if let from = opened.removeValue(forKey: poll.node) {
                windows[poll.node, default: []].append(from...poll.end)
            }
        }
        for (node, from) in opened { windows[node, default: []].append(from...Double.infinity) }
    }

    /// Whether `node` said it was not ready at some time between `start` and `end`.
    func notReady(_ node: Int, between start: Double, and end: Double) -> Bool {
        windows[node, default: []].contains { $0.overlaps(start...max(start, end)) }
    }
}
