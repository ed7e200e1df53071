@testable import ServerCore
import ConfigCore
import Foundation
import Testing

/// When a worker may answer from the session it read before, and when it must read it again.
@Suite struct SessionCacheTests {
    static let start = Date(timeIntervalSince1970: 1_900_000_000)

    func session(lastSeen: Date, hours: Double = 24) -> ConsoleSession {
        ConsoleSession(id: "s1", principal: "ada@example.com", sha256: String(repeating: "0", count: 64),
                       createTime: Timestamp(Self.start), lastSeenTime: Timestamp(lastSeen),
                       expireTime: Timestamp(Self.start.addingTimeInterval(hours * 3_600)), claimRoles: [:], claimOwner: false)
    }

    @Test func anEntryHoldsUntilAccessChanges() {
        let cache = SessionCache(idle: 600)
        #expect(!cache.isCurrent("s1", accessCounter: 7, now: Self.start), "never read")
        cache.keep("s1", session(lastSeen: Self.start), accessCounter: 7, readTime: Self.start)
        #expect(cache.isCurrent("s1", accessCounter: 7, now: Self.start.addingTimeInterval(60)))
        #expect(!cache.isCurrent("s1", accessCounter: 8, now: Self.start.addingTimeInterval(60)), "a session may have ended")
    }

    @Test func anUnknownIdIsRememberedAsUnknown() {
        let cache = SessionCache(idle: 600)
        cache.keep("s1", nil, accessCounter: 3, readTime: Self.start)
        #expect(cache.isCurrent("s1", accessCounter: 3, now: Self.start.addingTimeInterval(3_600)))
        #expect(cache.entry("s1")?.session == nil)
    }

    @Test func aSessionThatLooksIdleIsReadAgainUnlessItWasIdleWhenRead() {
        let cache = SessionCache(idle: 600)
        cache.keep("s1", session(lastSeen: Self.start), accessCounter: 1, readTime: Self.start)
        // Another worker may have kept it alive since: read it again.
        #expect(!cache.isCurrent("s1", accessCounter: 1, now: Self.start.addingTimeInterval(601)))
        // Read after it went idle: nothing can bring it back.
        cache.keep("s1", session(lastSeen: Self.start), accessCounter: 1, readTime: Self.start.addingTimeInterval(700))
        #expect(cache.isCurrent("s1", accessCounter: 1, now: Self.start.addingTimeInterval(800)))
    }

    @Test func aKeepAliveHereMovesTheEntry() {
        let cache = SessionCache(idle: 600)
        cache.keep("s1", session(lastSeen: Self.start), accessCounter: 1, readTime: Self.start)
        cache.keptAlive(session(lastSeen: Self.start.addingTimeInterval(500)))
        #expect(cache.isCurrent("s1", accessCounter: 1, now: Self.start.addingTimeInterval(900)))
        cache.forget("s1")
        #expect(cache.entry("s1") == nil)
    }
}
