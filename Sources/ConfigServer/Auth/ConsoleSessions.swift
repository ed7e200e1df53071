import ConfigCore
import ConfigStore
import Dispatch
import Foundation
import Synchronization

/// Starts, keeps alive and ends console sessions in the store (blocking calls: store queue).
/// Each change is read back by every worker and node before it answers again, as a token's is.
final class ConsoleSessions: Sendable {
    private let store: any TemplateStore
    private let access: AccessControl
    private let counters: ChangeCounters
    private let projectLoader: ProjectLoader
    private let settings: SignInSettings
    private let storeQueue: StoreQueue
    /// Sessions whose `lastSeenTime` this worker is writing now.
    private let refreshing = Mutex(Set<String>())

    init(store: any TemplateStore, access: AccessControl, counters: ChangeCounters, projectLoader: ProjectLoader,
         settings: SignInSettings, storeQueue: StoreQueue) {
        self.store = store
        self.access = access
        self.counters = counters
        self.projectLoader = projectLoader
        self.settings = settings
        self.storeQueue = storeQueue
    }

    /// The cookie's lifetime: the session's.
    var maxAgeSeconds: Int { settings.sessionMaxHours * 3_600 }

    /// Signs `person` in: their principal made or brought up to date, and a new session.
    /// - Returns: the session's secret (for the cookie) and record.
    /// - Throws: `SignInFailure` (403) for someone who holds no role anywhere.
    func start(email: String, name: String?, groups: [String]) throws -> (secret: String, session: ConsoleSession) {
        let known = access.storedAccess
        let mapped = settings.mappedRoles(email: email, groups: groups)
        let existing = known.principals[email]
        guard existing?.owner == true || mapped.owner || !mapped.roles.isEmpty || known.roles[email]?.isEmpty == false else {
            throw SignInFailure(403, "\(email) holds no role on this server: ask an admin of a project to add you as a member.")
        }
        let now = Timestamp(Date())
        var principal = existing
            ?? Principal(id: email, kind: .person, displayName: name ?? email, email: email, owner: false, createTime: now)
        if let name, !name.isEmpty { principal.displayName = String(name.prefix(100)) }
        let (id, secret) = ConsoleSession.mint()
        let session = ConsoleSession(
            id: id, principal: email, sha256: SecretDigest(secret: secret).hex, createTime: now, lastSeenTime: now,
            expireTime: Timestamp(now.date.addingTimeInterval(TimeInterval(maxAgeSeconds))),
            claimRoles: mapped.roles, claimOwner: mapped.owner)
        if principal != existing { try store.putAccessRecord(.principal, id: email, record: Self.encode(principal)) }
        try store.putAccessRecord(.session, id: id, record: Self.encode(session))
        try changed()
        return (secret, session)
    }

    /// Ends a session everywhere; whether there was one.
    func end(id: String) throws -> Bool {
        guard try store.deleteAccessRecord(.session, id: id) else { return false }
        try changed()
        return true
    }

    /// Notes that a session was used: its `lastSeenTime` is written again (off the loop) once
    /// it is older than the refresh interval, so the idle time-out counts from the last use on
    /// any worker, at the cost of one write per session per interval.
    func noteUse(of id: String) {
        let now = Date()
        guard let session = access.storedAccess.sessions[id],
              now.timeIntervalSince(session.lastSeenTime.date) >= refreshInterval,
              refreshing.withLock({ $0.insert(id).inserted }) else { return }
        storeQueue.async { [self] in
            defer { _ = refreshing.withLock { $0.remove(id) } }
            guard var current = access.storedAccess.sessions[id] else { return }
            current.lastSeenTime = Timestamp(now)
            // An update, not a put: a session ended meanwhile (on any worker) stays ended.
            if (try? store.updateAccessRecord(.session, id: id, record: Self.encode(current))) == true { try? changed() }
        }
    }

    /// A tenth of the idle time-out, at most five minutes.
    private var refreshInterval: TimeInterval { min(TimeInterval(settings.sessionIdleMinutes) * 6, 300) }

    private func changed() throws {
        counters.bumpProjects()
        try projectLoader.reload()
    }

    private static func encode(_ value: some Encodable) -> [UInt8] {
        Array(TemplateJSON.encode(value))
    }
}
