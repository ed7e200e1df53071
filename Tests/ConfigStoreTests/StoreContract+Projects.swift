import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing
import TestSupport

/// Projects and their client API keys.
extension StoreContract {
    @Suite struct Projects {
        let fresh = FreshData()

        @Test(arguments: StoreEngine.allCases) func projectsAreUpsertedByIDAndListedInByteOrder(engine: StoreEngine) throws {
            let store = try fresh.fixture(engine).make().projects
            let p1 = StoredProject(id: "p1", number: "1001", displayName: "Project One")
            #expect(try store.all() == [p1])

            let renamed = StoredProject(id: "p1", number: "1002", displayName: "Renamed", percentSeed: "seed")
            try store.upsert(renamed)
            try store.upsert(StoredProject(id: "a0", number: "7"))
            try store.upsert(StoredProject(id: "Z9", number: "8"))
            // Byte order, whatever the database's collation.
            #expect(try store.all() == [StoredProject(id: "Z9", number: "8"), StoredProject(id: "a0", number: "7"), renamed])

            #expect(throws: StoreError.projectNumberTaken(number: "7", project: "a0")) {
                try store.upsert(StoredProject(id: "p2", number: "7"))
            }
            for (id, number) in [("p2", "12a"), ("", "12"), ("123", "12"), (String(repeating: "a", count: 129), "12")] {
                let error = try #require(throws: StoreError.self) { try store.upsert(StoredProject(id: id, number: number)) }
                guard case .invalidArgument = error else {
                    Issue.record("expected invalidArgument for id '\(id)' number '\(number)', got \(error)")
                    continue
                }
            }
        }

        @Test(arguments: StoreEngine.allCases) func apiKeysAreKeptPerProject(engine: StoreEngine) throws {
            let store = try fresh.fixture(engine).make().projects
            try store.upsert(StoredProject(id: "a0", number: "7"))
            try store.addAPIKey(project: "p1", keyHash: "h1", name: "web", environment: .production)
            try store.addAPIKey(project: "p1", keyHash: "h2", name: "ios", environment: .production)
            try store.addAPIKey(project: "p1", keyHash: "h1", name: "web renamed", environment: .production)
            try store.addAPIKey(project: "a0", keyHash: "h1", name: "shared", environment: .production)
            #expect(try store.apiKeys(project: "p1").map(\.keyHash) == ["h1", "h2"])
            #expect(try store.apiKeys(project: "a0").map(\.keyHash) == ["h1"])  // a hash may serve several projects
            #expect(try store.removeAPIKey(project: "p1", keyHash: "h2"))
            #expect(try !store.removeAPIKey(project: "p1", keyHash: "h2"))
            #expect(try store.apiKeys(project: "p1").map { "\($0.keyHash):\($0.name)" } == ["h1:web renamed"])
            #expect(throws: StoreError.projectNotFound("ghost")) {
                try store.addAPIKey(project: "ghost", keyHash: "h", name: "", environment: .production)
            }
        }

        /// What a worker reading every project's keys again gets in one query: the same as asking
        /// project by project.
        @Test(arguments: StoreEngine.allCases) func allAPIKeysAreReadAtOnceByProject(engine: StoreEngine) throws {
            let clock = ManualClock()
            let store = try fresh.fixture(engine).make(clock: clock).projects
            #expect(try store.allAPIKeys().isEmpty)
            try store.upsert(StoredProject(id: "B", number: "2"))
            try store.upsert(StoredProject(id: "keyless", number: "3"))
            for (project, hash) in [("p1", "h3"), ("B", "h1"), ("p1", "h1"), ("p1", "H2")] {
                try store.addAPIKey(project: project, keyHash: hash, name: "\(project) \(hash)", environment: .production)
                clock.advance(by: 1)
            }
            let all = try store.allAPIKeys()
            #expect(all.keys.sorted() == ["B", "p1"], "a project without keys has no entry")
            for project in ["B", "p1"] {
                #expect(all[project] == (try store.apiKeys(project: project)))
            }
            #expect(all["p1"]?.map(\.keyHash) == ["h3", "h1", "H2"], "oldest first")
        }
    }
}
