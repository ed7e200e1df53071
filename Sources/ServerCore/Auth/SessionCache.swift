import ConfigCore
import Foundation
import Synchronization

/// The console sessions this worker looked up lately, by id. Sessions are not part of what a
/// worker loads (`ControlPlane`): a sign-in or a keep-alive changes one record and tells no one,
/// and a worker reads a session from the store the first time a request presents it.
///
/// An entry is trusted while the access counter holds the value read just before it was read:
/// ending a session is an announced change of access, so no worker goes on using an ended one.
/// A keep-alive written by another worker is not announced: an entry that says its session went
/// idle is read again, in case it was used elsewhere meanwhile.
final class SessionCache: Sendable {
    struct Entry: Sendable {
        /// Nil for an id the store does not know.
        var session: ConsoleSession?
        /// The access counter read before the store was.
        let accessCounter: Int64
        let readTime: Date
    }

    /// Enough for every person of a large team; a flood of made-up ids empties it rather than
    /// growing it.
    static let capacity = 10_000
    private let entries = Mutex<[String: Entry]>([:])
    private let idle: TimeInterval

    /// - Parameter idle: how long an unused session lasts (`signIn.sessionIdleMinutes`).
    init(idle: TimeInterval) {
        self.idle = idle
    }

    /// What this worker last read of session `id`.
    func entry(_ id: String) -> Entry? {
        entries.withLock { $0[id] }
    }

    /// Whether the entry of `id` may be used now, without reading the store again.
    func isCurrent(_ id: String, accessCounter: Int64, now: Date) -> Bool {
        guard let entry = entry(id), entry.accessCounter == accessCounter else { return false }
        guard let session = entry.session, !session.isUsable(at: now, idle: idle) else { return true }
        // Unusable now: certainly so if it already was when read (nothing keeps an unusable
        // session alive); else another worker may have kept it alive since.
        return !session.isUsable(at: entry.readTime, idle: idle)
    }

    /// Keeps what was read of `id` (or nil: no such session).
    func keep(_ id: String, _ session: ConsoleSession?, accessCounter: Int64, readTime: Date) {
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[id] == nil { entries.removeAll(keepingCapacity: true) }
            entries[id] = Entry(session: session, accessCounter: accessCounter, readTime: readTime)
        }
    }

    /// Records a keep-alive this worker wrote.
    func keptAlive(_ session: ConsoleSession) {
        entries.withLock { entries in
            guard entries[session.id] != nil else { return }
            entries[session.id]?.session = session
        }
    }

    /// Forgets `id` (a session this worker ended).
    func forget(_ id: String) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }
}
