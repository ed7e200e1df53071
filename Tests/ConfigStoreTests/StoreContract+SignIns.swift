import ConfigCore
import ConfigStore
import Foundation
import StoreTestSupport
import Testing
import TestSupport

/// Sign-ins under way.
extension StoreContract {
    @Suite struct SignIns {
        let fresh = FreshData()

        @Test(arguments: StoreEngine.allCases) func aSignInAttemptIsTakenOnceBeforeItExpires(engine: StoreEngine) throws {
            let clock = ManualClock()
            let store = try fresh.fixture(engine).make(clock: clock).signIns
            #expect(try store.putAttempt(stateHash: "s1", record: [1, 2, 0, 255], expireTime: clock.now.addingTimeInterval(600),
                                         maxPending: 2))
            #expect(try store.putAttempt(stateHash: "s2", record: [2], expireTime: clock.now.addingTimeInterval(60), maxPending: 2))
            #expect(try !store.putAttempt(stateHash: "s3", record: [3], expireTime: clock.now.addingTimeInterval(60), maxPending: 2),
                    "beyond the bound nothing is kept")
            #expect(try store.takeAttempt(stateHash: "s3") == nil)
            #expect(try store.takeAttempt(stateHash: "s1") == [1, 2, 0, 255])
            #expect(try store.takeAttempt(stateHash: "s1") == nil, "a state is used once")
            #expect(try store.takeAttempt(stateHash: "unknown") == nil)
            clock.advance(by: 61)
            #expect(try store.takeAttempt(stateHash: "s2") == nil, "an expired attempt is refused")
            #expect(try store.putAttempt(stateHash: "s2", record: [3], expireTime: clock.now.addingTimeInterval(60), maxPending: 2))
            #expect(try store.takeAttempt(stateHash: "s2") == [3], "the expired one was removed, not kept")
        }
    }
}
