import Foundation
import Testing
import TestSupport

/// A new project's first version is published through node 0, then within a second node 1's
/// link goes silent. On every worker of node 1 (each fetch on a new connection, so that both
/// workers take some) a fetch of that project answers the version from memory, or 503 where a
/// worker never loaded it — never an empty config (`NO_TEMPLATE`, version 0) — and each is
/// answered, from `fromMemoryAfter` on within `fromMemorySeconds` (docs/scaling.md: served from
/// memory within milliseconds after the first reload that runs out of time).
@Suite(.serialized, .timeLimit(.minutes(2))) struct CutAfterFirstPublishTests {
    static let seed: UInt64 = 71
    /// Every worker polls the store each second (`store.pollIntervalSeconds`), each poll given
    /// 1.5 s (`store.requestTimeoutSeconds`): by 2.5 s each worker's has run out; 1.5 s of slack.
    static let fromMemoryAfter = 4.0
    static let fromMemorySeconds = 0.05
    /// Past the listener's heartbeat (sent after 10 s of silence, answered within 10 s), so
    /// that the listener giving up is seen too.
    static let watchSeconds = 22.0

    @Test func aNodeCutRightAfterAProjectsFirstPublishNeverAnswersItEmpty() throws {
        var random = SplitMix64(seed: Self.seed)
        let cutDelay = Double(random.next() % 1000) / 1000
        print("cut after first publish: seed \(Self.seed), cut \(String(format: "%.2f", cutDelay)) s after the acknowledgement")
        let cluster = try FaultCluster(nodes: 2, seed: Self.seed)
        defer { cluster.shutDown() }
        let port0 = try #require(cluster.nodes[0].port)
        let port1 = try #require(cluster.nodes[1].port)
        let number = "\(700_000 + Self.seed)"
        let key = try #require(NodeCalls.createProject(port0, id: "fresh-\(Self.seed)", number: number))
        let first = NodeCalls.publish(port0, "first", project: "fresh-\(Self.seed)")
        try #require(first.status == 200 && first.version == 1, "\(first)")
        let before = NodeCalls.fetch(port1, instance: "before", projectNumber: number, apiKey: key)
        try #require(before.status == 200 && before.version == 1, "node 1 before the cut: \(before)")
        letTimePass(seconds: cutDelay)
        cluster.links[1].set(.silent)

        let history = History()
        let fetchers = DispatchGroup()
        for thread in 0..<2 {
            fetchers.enter()
            Thread {
                var count = 0
                while history.now < Self.watchSeconds {
                    let start = history.now
                    let answer = NodeCalls.fetch(port1, limit: 5, instance: "cut-\(thread)-\(count)", projectNumber: number, apiKey: key)
                    history.record(History.Operation(kind: .fetch, node: 1, start: start, end: start + answer.seconds,
                                                     status: answer.status, version: answer.version, value: answer.value))
                    count += 1
                    letTimePass(seconds: 0.02)  // the fetchers' pace
                }
                fetchers.leave()
            }.start()
        }
        fetchers.wait()

        let fetches = history.operations
        let wrong = fetches.filter { !(($0.status == 200 && $0.version == 1 && $0.value == "first") || $0.status == 503) }
        let late = fetches.filter { $0.start >= Self.fromMemoryAfter }.map { $0.end - $0.start }.sorted()
        let slow = fetches.filter { $0.start >= Self.fromMemoryAfter && $0.end - $0.start > Self.fromMemorySeconds }
        print("cut after first publish: \(fetches.count) fetches, \(fetches.filter { $0.status == 503 }.count) 503, "
              + "\(wrong.count) neither version 1 nor 503, \(slow.count) slower than \(Self.fromMemorySeconds) s from "
              + "\(Self.fromMemoryAfter) s on (median \(String(format: "%.3f", late.isEmpty ? 0 : late[late.count / 2])) s, slowest "
              + "\(String(format: "%.3f", late.last ?? 0)) s)")
        #expect(wrong.isEmpty, "seed \(Self.seed): \(wrong.count) of \(fetches.count): \(wrong.prefix(5).map(\.description))")
        #expect(slow.isEmpty, "seed \(Self.seed): \(slow.count) of \(fetches.count): \(slow.prefix(5).map(\.description))")
    }
}
