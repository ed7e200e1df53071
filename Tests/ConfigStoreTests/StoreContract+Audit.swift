import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing

/// The audit log.
extension StoreContract {
    @Suite struct Audit {
        let fresh = FreshData()

        @Test(arguments: StoreEngine.allCases) func theAuditLogAppendsFiltersPagesAndPrunes(engine: StoreEngine) throws {
            let store = try fresh.fixture(engine).make().audit
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            func entry(_ index: Int, actor: String, action: String, project: String?) -> AuditEntry {
                AuditEntry(time: start.addingTimeInterval(Double(index)), actorID: actor, actorName: actor.uppercased(), origin: "API",
                           requestID: "r\(index)", clientAddress: "127.0.0.1", action: action, project: project, namespace: nil,
                           target: nil, versionNumber: index % 2 == 0 ? Int64(index) : nil,
                           diff: index == 0 ? Array(#"{"d":1}"#.utf8) + [0] : nil, outcome: "ok")
            }
            var ids: [Int64] = []
            for index in 0..<6 {
                ids.append(try store.append(entry(index, actor: index < 4 ? "a" : "b", action: index % 3 == 0 ? "x" : "y",
                                                  project: index == 5 ? nil : "p1")))
            }
            #expect(ids == ids.sorted() && Set(ids).count == 6, "ids grow")
            let all = try store.entries(AuditQuery()).entries
            #expect(all.map(\.requestID) == ["r5", "r4", "r3", "r2", "r1", "r0"], "newest first")
            var first = entry(0, actor: "a", action: "x", project: "p1")
            first.id = ids[0]
            #expect(all.last == first, "every field back as given, a diff's bytes and all")
            #expect(all[0].project == nil && all[1].diff == nil && all[1].versionNumber == 4)
            #expect(try store.entries(AuditQuery(actorID: "a", action: "x")).entries.map(\.requestID) == ["r3", "r0"])
            #expect(try store.entries(AuditQuery(project: "p1", startTime: start.addingTimeInterval(2),
                                                      endTime: start.addingTimeInterval(4))).entries.map(\.requestID) == ["r3", "r2"])
            let page1 = try store.entries(AuditQuery(pageSize: 4))
            #expect(page1.entries.count == 4)
            let page2 = try store.entries(AuditQuery(pageSize: 4, pageToken: page1.nextPageToken))
            #expect(page2.entries.map(\.requestID) == ["r1", "r0"] && page2.nextPageToken == nil)
            #expect(throws: StoreError.invalidPageToken("nope")) { try store.entries(AuditQuery(pageToken: "nope")) }
            #expect(throws: StoreError.self) { try store.entries(AuditQuery(pageSize: 0)) }
            #expect(try store.prune(before: start.addingTimeInterval(2)) == 2)
            #expect(try store.entries(AuditQuery()).entries.map(\.requestID) == ["r5", "r4", "r3", "r2"])
        }

        /// An entry kept late (a refusal queued behind a change made after it) takes the time of
        /// the entry ahead of it: in id order, times never go back.
        @Test(arguments: StoreEngine.allCases) func anAuditEntryIsNeverTimedBeforeTheOneAheadOfIt(engine: StoreEngine) throws {
            let store = try fresh.fixture(engine).make().audit
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            for (index, offset) in [0.0, 5.0, 2.0, 7.0].enumerated() {
                try store.append(AuditEntry(time: start.addingTimeInterval(offset), actorID: "a", actorName: "A", origin: "API",
                                            requestID: "r\(index)", clientAddress: "127.0.0.1", action: "x", project: nil,
                                            namespace: nil, target: nil, versionNumber: nil, diff: nil, outcome: "ok"))
            }
            let times = try store.entries(AuditQuery()).entries.reversed().map { $0.time.timeIntervalSince(start) }
            #expect(times == [0, 5, 5, 7])
        }
    }
}
