import ConfigCore
import CLinuxIO
import ConfigStore

/// Commit counters shared by every worker of the group, so that nothing older than an
/// acknowledged write is served anywhere.
///
/// A worker that commits a publish, a rollback or a project change bumps the counter of what it
/// changed *after* the commit and *before* it acknowledges. A worker remembers, with each thing
/// it loaded, the counter it read just before reading the store; while the counter still holds
/// that value nothing was acknowledged since, so the fast path costs one atomic load. When it
/// moved, the worker reads the store again before it answers.
///
/// Templates share 4,096 counters by hash: a collision costs a needless reload, never a stale
/// answer. The control plane has a counter per scope (`ControlPlaneScope`): one for projects
/// and client API keys (all a fetch reads besides its template), one for access records and
/// change policies (what admin calls read). A last slot says whether the node's store listener
/// is absent (see `listenerAbsent`).
package final class ChangeCounters: @unchecked Sendable {
    // @unchecked: the slots are only read and written through atomic operations, and the
    // mapping outlives every user (it is never unmapped while the process runs).
    static let templateSlots = 4096
    static let regionBytes = (3 + templateSlots) * MemoryLayout<Int64>.size
    private static let projectsSlot = 0
    private static let listenerSlot = 1 + templateSlots
    private static let accessSlot = 2 + templateSlots

    private let slots: UnsafeMutablePointer<Int64>

    /// Counters in `region` (shared with the group, or private to a single process).
    package init(region: UnsafeMutableRawPointer) {
        slots = region.bindMemory(to: Int64.self, capacity: 3 + Self.templateSlots)
    }

    /// Private counters for a server of one process.
    package static func local() -> ChangeCounters {
        let region = UnsafeMutableRawPointer.allocate(byteCount: regionBytes, alignment: 8)
        region.initializeMemory(as: UInt8.self, repeating: 0, count: regionBytes)
        return ChangeCounters(region: region)
    }

    /// The counter that covers `key`'s template.
    static func slot(of key: TemplateKey) -> Int {
        1 + Int(FNV1a.hash(key.project, key.namespace.rawValue) % UInt32(templateSlots))
    }

    func value(at slot: Int) -> Int64 { rcs_atomic_load(slots + slot) }

    /// After a commit that changed `key`'s template, before it is acknowledged; returns the new value.
    @discardableResult
    func bump(_ key: TemplateKey) -> Int64 { rcs_atomic_add(slots + Self.slot(of: key), 1) }

    /// The counter of a control-plane scope.
    func value(of scope: ControlPlaneScope) -> Int64 { rcs_atomic_load(slots + Self.slot(of: scope)) }

    /// After a commit that changed `scope`, before it is acknowledged.
    func bump(_ scope: ControlPlaneScope) { _ = rcs_atomic_add(slots + Self.slot(of: scope), 1) }

    private static func slot(of scope: ControlPlaneScope) -> Int {
        switch scope {
        case .projects: projectsSlot
        case .access: accessSlot
        }
    }

    /// Every template and both control-plane scopes count as changed: each worker reads each
    /// again before it answers about it (and tells its streams what moved, on its next tick).
    func bumpAll() {
        for slot in 0...Self.templateSlots { _ = rcs_atomic_add(slots + slot, 1) }
        bump(.access)
    }

    /// Whether the node's store listener is absent (not yet connected, reconnecting, or its
    /// worker died): another node's commit may then be acknowledged without this node hearing
    /// of it, so the counters prove nothing and each request reads the store once before it is
    /// answered. Always false for a store without a listener.
    var listenerAbsent: Bool { rcs_atomic_load(slots + Self.listenerSlot) != 0 }

    /// Set by the listener (absent until connected and caught up, absent again when it drops
    /// its connection) and by the supervisor when the listener's worker dies.
    package func setListenerAbsent(_ absent: Bool) { rcs_atomic_store(slots + Self.listenerSlot, absent ? 1 : 0) }
}

/// The 32-bit FNV-1a hash, to spread names over shared counters (stable across processes,
/// unlike `Hasher`).
enum FNV1a {
    static func hash(_ parts: String...) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for (index, part) in parts.enumerated() {
            // A zero byte between parts, so ("ab", "c") and ("a", "bc") differ.
            if index > 0 { hash = hash &* 16_777_619 }
            for byte in part.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        }
        return hash
    }
}
