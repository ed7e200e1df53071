import Foundation
import Testing

/// Many SDKs held on two nodes (two workers each), each fetching on a new connection as soon as
/// its stream tells it of a version, through a hundred publishes and no fault: no fetch may
/// answer a version older than one its node's streams announced before it began
/// (`HistoryChecker.noReadOlderThanAnnounced`).
@Suite(.serialized, .timeLimit(.minutes(2))) struct StreamFollowUpTests {
    static let seed: UInt64 = 51
    static let publishes = 100

    @Test func aFetchAfterAnAnnouncementAnswersTheAnnouncedVersionOrNewer() throws {
        print("stream follow-ups: seed \(Self.seed)")
        let cluster = try FaultCluster(nodes: 2, seed: Self.seed)
        defer { cluster.shutDown() }
        _ = try #require(NodeCalls.publishUntilAcknowledged({ cluster.nodes[0].port }, "s\(Self.seed)-initial", within: 10))
        let history = History()
        let workload = Workload(history: history, nodes: cluster.nodes, seed: Self.seed,
                                mix: Workload.Mix(publishers: 1, fetchers: 0, sdks: 25))
        workload.start()
        func acknowledged(_ operations: [History.Operation]) -> [History.Operation] {
            operations.filter { $0.kind == .publish && $0.status == 200 }
        }
        func acknowledged() -> Int { acknowledged(history.operations).count }
        history.wait(until: history.now + 45) { acknowledged($0).count >= Self.publishes }
        // The last announcements' follow-ups: every node told of the last version acknowledged,
        // and every notice followed by its fetch.
        history.wait(until: history.now + 5) { operations in
            let last = acknowledged(operations).compactMap(\.version).max() ?? 0
            let notices = operations.filter { $0.kind == .streamNotice }
            return Set(notices.filter { ($0.version ?? 0) >= last }.map(\.node)).count == 2
                && operations.filter { $0.kind == .sdkFetch }.count >= notices.count
        }
        workload.stop()

        let operations = history.operations
        let followUps = operations.filter { $0.kind == .sdkFetch && $0.status == 200 }.count
        let older = HistoryChecker(operations: operations, faults: [], final: [:], probe: (0, 0), nodes: []).noReadOlderThanAnnounced()
        print("stream follow-ups: \(acknowledged()) publishes acknowledged, \(followUps) follow-up fetches, \(older.count) older than announced")
        #expect(acknowledged() >= Self.publishes)
        #expect(followUps >= 2_000, "too few follow-ups to tell")
        #expect(older.isEmpty, "seed \(Self.seed): \(older.count) of \(followUps) older than announced: \(older.prefix(5))")
    }
}
