import ConfigCore
@testable import ServerCore
import ConfigStore
import Testing

@Suite struct FetchedInstancesTests {
    @Test func anInstanceCountsOnceOnTheVersionOfItsLatestFetch() {
        let table = FetchedInstances()
        // Enough instances to grow the table several times over.
        for index in 0 ..< 5000 {
            #expect(table.record(hash: FetchedInstances.hash("instance-\(index)"), version: 1, minute: 10, mayAdd: true))
        }
        for index in 0 ..< 2000 {
            #expect(!table.record(hash: FetchedInstances.hash("instance-\(index)"), version: 2, minute: 11, mayAdd: true))
        }
        #expect(table.count == 5000)
        #expect(table.clientsPerVersion() == [1: 3000, 2: 2000])
    }

    @Test func instancesLeaveWithTheMinuteOfTheirLatestFetch() {
        let table = FetchedInstances()
        for index in 0 ..< 100 {
            _ = table.record(hash: FetchedInstances.hash("old-\(index)"), version: 1, minute: 3, mayAdd: true)
            _ = table.record(hash: FetchedInstances.hash("new-\(index)"), version: 1, minute: 5, mayAdd: true)
        }
        _ = table.record(hash: FetchedInstances.hash("old-7"), version: 2, minute: 6, mayAdd: true)
        table.forget(upToMinute: 4)
        #expect(table.count == 101)
        #expect(table.clientsPerVersion() == [1: 100, 2: 1])
        table.forget(upToMinute: 6)
        #expect(table.count == 0)
        #expect(table.clientsPerVersion().isEmpty)
    }

    @Test func aFullTableUpdatesKnownInstancesAndAddsNone() {
        let table = FetchedInstances()
        _ = table.record(hash: FetchedInstances.hash("known"), version: 1, minute: 1, mayAdd: true)
        #expect(!table.record(hash: FetchedInstances.hash("stranger"), version: 1, minute: 1, mayAdd: false))
        #expect(!table.record(hash: FetchedInstances.hash("known"), version: 2, minute: 1, mayAdd: false))
        #expect(table.clientsPerVersion() == [2: 1])
    }

    @Test func theHashReadsEveryByte() {
        let ids = ["", "a", "b", "ab", "ba", "fGx0c9hT5Qy2LkM7nWp1Rd", "fGx0c9hT5Qy2LkM7nWp1Re", "é", "e\u{301}"]
        #expect(Set(ids.map(FetchedInstances.hash)).count == ids.count)
        #expect(!ids.map(FetchedInstances.hash).contains(0))
    }

    @Test func theLiveViewCountsTheInstancesAWorkerCanHoldAndNoMore() {
        let stats = AdoptionStats()
        let key = TemplateKey(project: "p", namespace: .client)
        for index in 0 ..< AdoptionStats.maxInstances + 10 {
            stats.fetched(version: 1, key: key, instance: "instance-\(index)", now: 600)
        }
        stats.fetched(version: 2, key: key, instance: "instance-0", now: 600)
        let counts = stats.counts(key: key)
        #expect(counts.versions[1]?.fetchedClients == AdoptionStats.maxInstances - 1)
        #expect(counts.versions[2]?.fetchedClients == 1)
        #expect(counts.versions[1]?.recentFetches == AdoptionStats.maxInstances + 10)
    }
}
