import Testing

/// The checker finds each breach in a history made by hand, and nothing in a clean one.
@Suite struct HistoryCheckerTests {
    typealias Operation = History.Operation

    static func publish(_ node: Int, _ start: Double, _ end: Double, status: Int?, version: Int64? = nil, _ value: String,
                        unknown: Bool = false) -> Operation {
        Operation(kind: .publish, node: node, start: start, end: end, status: status, outcomeUnknown: unknown, version: version,
                  value: value)
    }

    static func fetch(_ node: Int, _ start: Double, _ end: Double, status: Int? = 200, version: Int64?, _ value: String?) -> Operation {
        Operation(kind: .fetch, node: node, start: start, end: end, status: status, version: version, value: value)
    }

    static func told(_ node: Int, _ at: Double, _ version: Int64) -> Operation {
        Operation(kind: .streamNotice, node: node, start: at, end: at, status: 200, version: version)
    }

    static func ready(_ node: Int, _ at: Double, _ status: Int?) -> Operation {
        Operation(kind: .readiness, node: node, start: at, end: at + 0.01, status: status)
    }

    /// A clean history: two publishes, a cut-off node that answered in time (and said it was not
    /// ready from 0.8 s to 2.6 s), every node caught up.
    static let clean: [Operation] = [
        ready(0, 0.8, 503), ready(0, 2.6, 200),
        publish(0, 0.0, 0.1, status: 200, version: 1, "a"),
        fetch(1, 0.2, 0.21, version: 1, "a"),
        publish(0, 1.0, 1.2, status: 503, "refused"),
        fetch(0, 1.0, 1.1, version: 1, "a"),
        publish(1, 1.1, 1.3, status: 200, version: 2, "b"),
        fetch(0, 1.5, 1.6, version: 1, "a"),
        publish(1, 3.0, 3.1, status: 200, version: 3, "probe"),
        fetch(0, 3.2, 3.3, version: 3, "probe"), fetch(1, 3.2, 3.3, version: 3, "probe"),
        told(0, 3.2, 3), told(1, 3.2, 3),
    ]
    static let cut = History.Fault(name: "cut", effect: .cutOff, nodes: [0], start: 0.5, healed: 2.5)
    static let final: [Int64: String?] = [1: "a", 2: "b", 3: "probe"]

    static func check(_ operations: [Operation], final: [Int64: String?] = final) -> [String] {
        HistoryChecker(operations: operations, faults: [cut], final: final, probe: (3, 3.1), nodes: [0, 1]).violations()
    }

    @Test func aCleanHistoryHasNoViolations() {
        #expect(Self.check(Self.clean) == [])
    }

    @Test func anAcknowledgedPublishLostIsFound() {
        #expect(Self.check(Self.clean, final: [1: "a", 3: "probe"]).contains { $0.contains("acknowledged publish lost") })
    }

    @Test func versionsPrunedByRetentionAreNotLost() {
        #expect(Self.check(Self.clean, final: [2: "b", 3: "probe"]) == [])
    }

    @Test func aGapIsFound() {
        #expect(Self.check(Self.clean, final: [1: "a", 2: "b", 4: "probe"]).contains { $0.contains("gaps") })
    }

    @Test func twoContentsForOneVersionAreFound() {
        #expect(Self.check(Self.clean + [Self.fetch(1, 2.0, 2.1, version: 2, "other")]).contains { $0.contains("was served as") })
    }

    @Test func aStaleReadOnAConnectedNodeIsFoundAndOneOnTheCutOffNodeIsNot() {
        #expect(Self.check(Self.clean + [Self.fetch(1, 1.4, 1.5, version: 1, "a")]).contains { $0.contains("stale read") })
        #expect(Self.check(Self.clean + [Self.fetch(0, 1.4, 1.5, version: 1, "a")]) == [])
    }

    @Test func aStaleReadIsExcusedOnlyWhileItsNodeSaidItWasNotReadyAndJustBefore() {
        // Node 0 is ready again from 2.6 s, within `catchUpSeconds` of its cut-off healing (the
        // other excuse); node 1 is not ready from 1.8 s (0.3 s of grace before).
        #expect(Self.check(Self.clean + [Self.fetch(0, 2.7, 2.8, version: 1, "a")]) == [])
        let node1 = Self.clean + [Self.ready(1, 1.8, 503), Self.ready(1, 2.0, 200)]
        #expect(Self.check(node1 + [Self.fetch(1, 1.55, 1.56, version: 1, "a")]) == [])
        #expect(Self.check(node1 + [Self.fetch(1, 1.4, 1.45, version: 1, "a")]).contains { $0.contains("stale read") })
        // A poll that got no answer says nothing.
        #expect(Self.check(Self.clean + [Self.ready(1, 1.3, nil), Self.fetch(1, 1.4, 1.5, version: 1, "a")])
            .contains { $0.contains("stale read") })
    }

    @Test func aFetchOlderThanAVersionItsNodeAnnouncedIsFound() {
        let announced = Self.clean + [Self.told(1, 1.35, 2)]
        #expect(Self.check(announced + [Self.fetch(1, 1.36, 1.37, version: 2, "b")]) == [])
        let older = Operation(kind: .sdkFetch, node: 1, start: 1.36, end: 1.37, status: 200, version: 1, value: "a")
        #expect(Self.check(announced + [older]).contains { $0.contains("older than announced") })
        // Another node's streams say nothing of this one.
        #expect(Self.check(Self.clean + [Self.told(0, 1.35, 2), Self.fetch(1, 1.36, 1.37, version: 2, "b")]) == [])
    }

    @Test func aFetchSlowerThanTwoSecondsIsFoundOnAnyNode() {
        #expect(Self.check(Self.clean + [Self.fetch(1, 0.2, 2.3, version: 1, "a")]).contains { $0.contains("fetch took more") })
    }

    @Test func theOtherNodesMustStopWaitingForAVanishedOne() {
        let vanished = History.Fault(name: "vanished", effect: .vanished, nodes: [1], start: 10, healed: 25)
        func check(_ durations: [(start: Double, seconds: Double)]) -> [String] {
            let publishes = durations.map { Self.publish(0, $0.start, $0.start + $0.seconds, status: 200, "p\($0.start)") }
            return HistoryChecker(operations: publishes, faults: [vanished], final: [:], probe: (0, 0), nodes: [])
                .vanishedNodesAreForgotten()
        }
        #expect(check([(11, 2.0), (14, 0.1), (21, 0.1), (26, 0.1)]) == [])
        #expect(check([(11, 2.0), (14, 2.0), (21, 2.0)]).count == 2, "still waiting after 10 s, and every one waited")
        #expect(check([(11, 2.0), (21, 0.1), (26, 0.6)]).count == 1, "slow once the node is back")
        #expect(check([(11, 2.0), (14, 1.5)]).count == 1, "none acknowledged in time")
    }

    @Test func aCutOffNodeThatHangsOrRefusesFetchesIsFound() {
        #expect(Self.check(Self.clean + [Self.fetch(0, 1.0, 1.0 + 2.5, status: nil, version: nil, nil)]).contains { $0.contains("answered badly or late") })
        #expect(Self.check(Self.clean + [Self.fetch(0, 1.0, 1.1, status: 503, version: nil, nil)]).contains { $0.contains("answered badly or late") })
    }

    @Test func aNodeOrStreamThatDoesNotCatchUpIsFound() {
        let withoutNode0 = Self.clean.filter { !($0.node == 0 && ($0.version ?? 0) == 3) }
        let found = Self.check(withoutNode0)
        #expect(found.contains { $0.contains("node 0 did not serve the probe") })
        #expect(found.contains { $0.contains("streams of node 0") })
    }

    @Test func aRefusedPublishAppliedLaterIsFoundAndAnUnknownOneMayBeThereOnce() {
        let late: [Int64: String?] = [1: "a", 2: "b", 3: "refused", 4: "probe"]
        #expect(Self.check(Self.clean, final: late).contains { $0.contains("is in the database 1 time") })
        let unknown = Self.clean.map { $0.value == "refused" ? Self.publish(0, 1.0, 1.2, status: 503, "refused", unknown: true) : $0 }
        #expect(!Self.check(unknown, final: [1: "a", 2: "b", 3: "probe", 4: "refused"]).contains { $0.contains("is in the database") })
        #expect(Self.check(unknown, final: [1: "a", 2: "b", 3: "probe", 4: "refused", 5: "refused"]).contains { $0.contains("2 time(s)") })
    }
}
