package import ConfigCore
package import ConfigStore
import Dispatch
import Foundation
import Synchronization

/// Starts, looks up, keeps alive and ends console sessions in the store (blocking calls: store
/// queue). Starting one and keeping it alive tell no one: other workers look it up when it is
/// first presented to them (`SessionCache`). Ending one is a change of access that every worker
/// and node reads before it answers again, as a token's revocation is.
package final class ConsoleSessions: Sendable {
    private let store: any AccessStore
    private let access: AccessControl
    private let counters: ChangeCounters
    private let controlPlane: ControlPlane
    private let settings: SignInSettings
    private let storeQueue: StoreQueue
    private let clock: any WallClock
    /// Sessions whose `lastSeenTime` this worker is writing now.
    private let refreshing = Mutex(Set<String>())

    package init(store: any AccessStore, access: AccessControl, counters: ChangeCounters, controlPlane: ControlPlane,
         settings: SignInSettings, storeQueue: StoreQueue, clock: any WallClock) {
        self.store = store
        self.access = access
        self.counters = counters
        self.controlPlane = controlPlane
        self.settings = settings
        self.storeQueue = storeQueue
        self.clock = clock
    }

    /// The cookie's lifetime: the session's.
    package var maxAgeSeconds: Int { settings.sessionMaxHours * 3_600 }

    /// Signs `person` in: their principal made or brought up to date, and a new session.
    /// - Returns: the session's secret (for the cookie) and record.
    /// - Throws: `SignInFailure` (403) for someone who holds no role anywhere.
    package func start(email: String, name: String?, groups: [String]) throws -> (secret: String, session: ConsoleSession) {
        let known = access.storedAccess
        let mapped = settings.mappedRoles(email: email, groups: groups)
        let existing = known.principals[email]
        guard existing?.owner == true || mapped.owner || !mapped.roles.isEmpty || known.roles[email]?.isEmpty == false else {
            throw SignInFailure(403, "\(email) holds no role on this server: ask an admin of a project to add you as a member.")
        }
        let now = Timestamp(clock.now)
        var principal = existing
            ?? Principal(id: email, kind: .person, displayName: name ?? email, email: email, owner: false, createTime: now)
        if let name, !name.isEmpty { principal.displayName = String(name.prefix(100)) }
        let (id, secret) = ConsoleSession.mint()
        let session = ConsoleSession(
            id: id, principal: email, sha256: SecretDigest(secret: secret).hex, createTime: now, lastSeenTime: now,
            expireTime: Timestamp(now.date.addingTimeInterval(TimeInterval(maxAgeSeconds))),
            claimRoles: mapped.roles, claimOwner: mapped.owner)
        if principal != existing {
            try store.put(.principal, id: email, record: Self.encode(principal))
            try controlPlane.committed(.access)
        }
        try store.put(.session, id: id, record: Self.encode(session))
        access.sessions.keep(id, session, accessCounter: counters.value(of: .access), readTime: clock.now)
        return (secret, session)
    }

    /// Ends a session everywhere; whether there was one.
    package func end(id: String) throws -> Bool {
        guard try store.delete(.session, id: id) else { return false }
        access.sessions.forget(id)
        try controlPlane.committed(.access)
        return true
    }

    /// Reads session `id` from the store into this worker's cache (store queue).
    func lookUp(_ id: String) throws {
        // The counter before the store, so that an end announced meanwhile reads it again.
        let counter = counters.value(of: .access)
        let readTime = clock.now
        access.sessions.keep(id, try read(id), accessCounter: counter, readTime: readTime)
    }

    /// Every session in the store (store queue).
    package func all() throws -> [ConsoleSession] {
        try store.records(kinds: [.session]).compactMap { Self.decode($0.record) }
    }

    /// The session `id` in the store, or nil.
    package func read(_ id: String) throws -> ConsoleSession? {
        try store.record(.session, id: id).flatMap { Self.decode($0.record) }
    }

    /// Notes that a session was used: its `lastSeenTime` is written again (off the loop) once
    /// it is older than the refresh interval, so the idle time-out counts from the last use on
    /// any worker, at the cost of one write per session per interval, which tells no one.
    func noteUse(of id: String) {
        let now = clock.now
        guard let session = access.sessions.entry(id)?.session,
              now.timeIntervalSince(session.lastSeenTime.date) >= refreshInterval,
              refreshing.withLock({ $0.insert(id).inserted }) else { return }
        storeQueue.async { [self] in
            defer { _ = refreshing.withLock { $0.remove(id) } }
            var current = session
            current.lastSeenTime = Timestamp(now)
            // An update, not a put: a session ended meanwhile (on any worker) stays ended.
            if (try? store.update(.session, id: id, record: Self.encode(current))) == true {
                access.sessions.keptAlive(current)
            }
        }
    }

    /// A tenth of the idle time-out, at most five minutes.
    private var refreshInterval: TimeInterval { min(TimeInterval(settings.sessionIdleMinutes) * 6, 300) }

    /// A record this build cannot read (a newer build's, or damaged) is no session.
    private static func decode(_ record: [UInt8]) -> ConsoleSession? {
        try? JSONDecoder().decode(ConsoleSession.self, from: Data(record))
    }

    private static func encode(_ value: some Encodable) -> [UInt8] {
        Array(TemplateJSON.encode(value))
    }
}
