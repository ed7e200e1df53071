import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing
import TestSupport

/// Access records (principals, memberships, tokens, sessions) and change policies.
extension StoreContract {
    @Suite struct Access {
        let fresh = FreshData()

        @Test(arguments: StoreEngine.allCases) func recordsAreKeptByKindAndID(engine: StoreEngine) throws {
            let clock = ManualClock()
            let store = try fresh.fixture(engine).make(clock: clock).access
            #expect(try store.records().isEmpty)
            try store.put(.principal, id: "svc-ci", record: Array(#"{"n":1}"#.utf8) + [0, 0xFF])
            try store.put(.token, id: "a1", record: Array("t".utf8))
            try store.put(.principal, id: "svc-ci", record: Array(#"{"n":2}"#.utf8))
            let records = try store.records()
            #expect(records.map { "\($0.kind.rawValue)/\($0.id)" } == ["principal/svc-ci", "token/a1"])
            #expect(records.first?.record == Array(#"{"n":2}"#.utf8), "a record is replaced whole, bytes as given")
            #expect(records.first?.updateTime == clock.now)
            #expect(try store.update(.token, id: "a1", record: Array("u".utf8)))
            #expect(try store.records().last?.record == Array("u".utf8))
            #expect(try store.delete(.token, id: "a1"))
            #expect(try !store.delete(.token, id: "a1"))
            #expect(try !store.update(.token, id: "a1", record: []), "an update does not bring a deleted record back")
            #expect(try store.records().count == 1)
            for id in ["", String(repeating: "x", count: 513)] {
                let error = try #require(throws: StoreError.self) { try store.put(.membership, id: id, record: []) }
                guard case .invalidArgument = error else {
                    Issue.record("expected invalidArgument, got \(error)")
                    continue
                }
            }
        }

        /// A session is looked up by id where it is used; the records every worker keeps are read
        /// without the sessions.
        @Test(arguments: StoreEngine.allCases) func aRecordIsLookedUpByIDAndKindsAreReadApart(engine: StoreEngine) throws {
            let clock = ManualClock()
            let store = try fresh.fixture(engine).make(clock: clock).access
            try store.put(.session, id: "ses1", record: [7])
            try store.put(.session, id: "ses2", record: [8])
            try store.put(.token, id: "ses1", record: [9])
            try store.put(.membership, id: "p1/ada", record: [1])
            #expect(try store.record(.session, id: "ses1")
                == StoredAccessRecord(kind: .session, id: "ses1", record: [7], updateTime: clock.now))
            #expect(try store.record(.token, id: "ses1")?.record == [9], "ids are unique within a kind only")
            #expect(try store.record(.session, id: "ses3") == nil)
            #expect(try store.records(kinds: [.membership, .token]).map { "\($0.kind.rawValue)/\($0.id)" }
                == ["membership/p1/ada", "token/ses1"])
            #expect(try store.records(kinds: [.session]).map(\.id) == ["ses1", "ses2"])
            #expect(try store.records(kinds: []).isEmpty)
            try store.delete(.session, id: "ses1")
            #expect(try store.record(.session, id: "ses1") == nil)
        }

        @Test(arguments: StoreEngine.allCases) func policiesAreKeptPerTemplate(engine: StoreEngine) throws {
            let store = try fresh.fixture(engine).make().access
            try store.putChangePolicy(StoredChangePolicy(project: "p1", namespace: .client, record: Array("1".utf8)))
            try store.putChangePolicy(StoredChangePolicy(project: "p1", namespace: .server, record: Array("2".utf8)))
            try store.putChangePolicy(StoredChangePolicy(project: "p1", namespace: .client, record: Array("3".utf8)))
            #expect(try store.changePolicies().map { String(decoding: $0.record, as: UTF8.self) } == ["3", "2"])
        }
    }
}
