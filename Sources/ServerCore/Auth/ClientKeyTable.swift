package import ConfigCore
import Synchronization

/// The projects' client API keys, each serving one environment of its project, as SHA-256
/// digests compared in constant time (`AccessControl`'s, for fetch, real-time and OFREP).
///
/// The keys each project last accepted are remembered in clear (they ship inside every app build
/// and arrive in clear on every fetch) so that a repeat presentation is one constant-time byte
/// comparison instead of a SHA-256: fetch is the hot path and nearly all of its requests carry
/// one of a few keys.
package final class ClientKeyTable: Sendable {
    /// A key's digest and the environment it serves.
    struct Entry: Sendable {
        let digest: SecretDigest
        let environment: EnvironmentID
    }

    /// The project and environment a key serves.
    package struct Owner: Sendable, Equatable {
        package let project: String
        package let environment: EnvironmentID
    }

    private struct State: Sendable {
        /// Project id → its keys.
        var entries: [String: [Entry]] = [:]
        /// Project id → its keys accepted lately with their environments, most recent last; a
        /// project's are forgotten whenever its keys are replaced.
        var accepted: [String: [(key: String, environment: EnvironmentID)]] = [:]
        /// Keys accepted lately without a project named (OFREP's), by their seeded hash, with
        /// what each serves; all are forgotten whenever any project's keys change, since a key
        /// remembered for one project may now be another's too, and so no project's.
        var owners: [Int: [(key: String, owner: Owner)]] = [:]
        var ownerCount = 0

        mutating func forgetOwners() {
            owners = [:]
            ownerCount = 0
        }
    }

    /// Keys remembered with their project: enough for every project's builds in the field.
    private static let rememberedOwners = 4096
    /// Keys remembered per project: enough for the builds of an app in the field.
    private static let rememberedKeysPerProject = 4
    private let state = Mutex(State())

    func replace(_ entries: [Entry], project: String) {
        state.withLock { state in
            state.entries[project] = entries
            state.accepted[project] = nil
            state.forgetOwners()
        }
    }

    func add(_ entry: Entry, project: String) {
        state.withLock { state in
            // A key added revokes none: what was accepted stays valid.
            state.entries[project, default: []].append(entry)
            state.forgetOwners()
        }
    }

    /// The environment `key` serves if it is one of `project`'s keys, else nil.
    func environment(ofKey key: String, project: String) -> EnvironmentID? {
        if let known = state.withLock({ Self.find(key, in: $0.accepted[project] ?? []) }) { return known }
        let presented = SecretDigest(secret: key)
        return state.withLock { state in
            var found: EnvironmentID?
            for entry in state.entries[project] ?? [] where entry.digest.matches(presented) { found = found ?? entry.environment }
            // Another thread may have remembered it meanwhile.
            if let found, Self.find(key, in: state.accepted[project] ?? []) == nil {
                var accepted = state.accepted[project] ?? []
                if accepted.count >= Self.rememberedKeysPerProject { accepted.removeFirst() }
                accepted.append((key, found))
                state.accepted[project] = accepted
            }
            return found
        }
    }

    /// What `key` serves, or nil: OFREP requests name no project, their key does, so a key of
    /// two projects is no project's rather than whichever the table lists last (the
    /// configuration refuses one; this holds meanwhile). A key seen lately is found by its hash
    /// (seeded per process, so a client cannot aim at a bucket) and confirmed in constant time;
    /// another is digested once and compared with every project's digests.
    func owner(ofKey key: String) -> Owner? {
        let hash = key.hashValue
        let remembered = state.withLock { state in
            var found: Owner?
            for entry in state.owners[hash] ?? [] where AccessControl.constantTimeEqual(entry.key, key) { found = entry.owner }
            return found
        }
        if let remembered { return remembered }
        let presented = SecretDigest(secret: key)
        return state.withLock { state in
            var found: [Owner] = []
            for (project, entries) in state.entries {
                for entry in entries where entry.digest.matches(presented) {
                    found.append(Owner(project: project, environment: entry.environment))
                }
            }
            guard let owner = found.first, found.allSatisfy({ $0 == owner }) else { return nil }
            if state.ownerCount >= Self.rememberedOwners { state.forgetOwners() }
            // Another thread may have remembered it meanwhile.
            if !(state.owners[hash] ?? []).contains(where: { $0.key == key }) {
                state.owners[hash, default: []].append((key, owner))
                state.ownerCount += 1
            }
            return owner
        }
    }

    /// The environment remembered with `key` among `keys`, every one compared in constant time.
    private static func find(_ key: String, in keys: [(key: String, environment: EnvironmentID)]) -> EnvironmentID? {
        var found: EnvironmentID?
        for candidate in keys where AccessControl.constantTimeEqual(candidate.key, key) { found = candidate.environment }
        return found
    }
}
