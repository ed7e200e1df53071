import ConfigCore
package import ConfigStore
package import Logging
import Synchronization

/// The active template of every (project, namespace) this worker has served, and its running
/// canary if any, kept in memory.
///
/// Reads here never touch the store. Whether an entry may still be served is decided by the
/// group's ``ChangeCounters``: an entry is *current* while its counter holds the value read
/// just before the entry was read from the store. ``reload(_:)`` (blocking, off the loop)
/// brings an entry up to date; the application's request gate calls it before it answers from
/// an entry that is not current, so an acknowledged publish is never answered with an older
/// version by any worker.
package final class TemplateRegistry: Sendable {
    private struct Entry: Sendable {
        /// Nil when nothing was published yet.
        var template: ActiveTemplate?
        var canary: CanaryServing?
        /// The change counter's value when this entry was last read from the store.
        var checked: Int64
        /// `key`'s change counter, hashed once.
        let slot: Int

        init(_ key: TemplateKey, template: ActiveTemplate?, checked: Int64) {
            self.template = template
            self.checked = checked
            slot = ChangeCounters.slot(of: key)
        }
    }

    private let store: any TemplateStore
    private let projects: ProjectDirectory
    private let counters: ChangeCounters
    private let usage: UsageLedger?
    private let logger: Logger
    private let entries = Mutex<[TemplateKey: Entry]>([:])
    /// The stored versions installed last, for the diffs of the audit log.
    package let recentVersions = RecentVersions()

    /// - Parameter usage: where the versions this worker compiles are counted (docs/insights.md).
    package init(store: any TemplateStore, projects: ProjectDirectory, counters: ChangeCounters, usage: UsageLedger? = nil,
                 logger: Logger) {
        self.store = store
        self.projects = projects
        self.counters = counters
        self.usage = usage
        self.logger = logger
    }

    /// The template in memory (nil when none was published, or it was never loaded here).
    package func active(_ key: TemplateKey) -> ActiveTemplate? {
        entries.withLock { $0[key]?.template }
    }

    /// Whether the store was read for `key` here (or this worker published it): nil from
    /// ``active(_:)`` then means that nothing was published, not that nothing is known.
    package func hasRead(_ key: TemplateKey) -> Bool {
        entries.withLock { table in table[key].map { $0.template != nil || $0.checked != .min } ?? false }
    }

    /// The version in memory (0 when none).
    package func currentVersion(_ key: TemplateKey) -> Int64 {
        active(key)?.versionNumber ?? 0
    }

    /// The running canary in memory.
    package func canary(_ key: TemplateKey) -> CanaryServing? {
        entries.withLock { $0[key]?.canary }
    }

    /// Every active template in memory.
    package var activeTemplates: [ActiveTemplate] {
        entries.withLock { table in table.values.compactMap(\.template) }
    }

    /// What is served now, by template: the active version, then the running canary's.
    package var servedTemplates: [TemplateKey: [ActiveTemplate]] {
        entries.withLock { table in table.mapValues { [$0.template, $0.canary?.template].compactMap { $0 } } }
    }

    /// Every running canary in memory.
    package var canaries: [CanaryServing] {
        entries.withLock { table in table.values.compactMap(\.canary) }
    }

    /// What `instance` is served: the canary version when it is in the canary's share, else
    /// the active version (nil when none).
    package func serving(_ key: TemplateKey, instance: String?) -> ActiveTemplate? {
        let (template, canary) = lookUp(key)
        return Self.serving(template, canary, instance: instance)
    }

    /// What the fetch path needs in one lookup: ``serving(_:instance:)``, or `.stale` when the
    /// entry is not current (the caller reloads it first; see ``isCurrent(_:reloaded:)``).
    package func servingIfCurrent(_ key: TemplateKey, instance: String?, reloaded: Bool = false) -> Serving {
        let found = entries.withLock { table in table[key].map { ($0.template, $0.canary, $0.checked, $0.slot) } }
        guard let (template, canary, checked, slot) = found, checked == counters.value(at: slot),
              reloaded || !counters.listenerAbsent
        else { return .stale }
        return .current(Self.serving(template, canary, instance: instance))
    }

    package enum Serving {
        case current(ActiveTemplate?)
        case stale
    }

    private static func serving(_ template: ActiveTemplate?, _ canary: CanaryServing?, instance: String?) -> ActiveTemplate? {
        // Without a canary this is the fetch's fast path: no hash. An anonymous server-side
        // evaluation has no bucket, so it is never in a canary.
        guard let canary, let instance, canary.includes(instance) else { return template }
        return canary.template
    }

    /// The version a held stream of `instance` should know.
    func streamTarget(_ key: TemplateKey, instance: String) -> StreamTarget {
        let (template, canary) = lookUp(key)
        if let canary, canary.includes(instance) { return StreamTarget(version: canary.version, equivalent: nil) }
        return StreamTarget(version: template?.versionNumber ?? 0, equivalent: template?.equivalent)
    }

    /// The active template and the canary of `key`, in one lookup.
    private func lookUp(_ key: TemplateKey) -> (template: ActiveTemplate?, canary: CanaryServing?) {
        entries.withLock { table in
            guard let entry = table[key] else { return (nil, nil) }
            return (entry.template, entry.canary)
        }
    }

    /// How far `key` has moved: the newest version in memory, then the canary's share. Every
    /// acknowledged change (publish, canary, larger share, promotion, abort) raises it.
    func progress(_ key: TemplateKey) -> Progress {
        entries.withLock { table in
            let entry = table[key]
            return Progress(version: max(entry?.template?.versionNumber ?? 0, entry?.canary?.version ?? 0),
                            share: entry?.canary?.stored.microPercent ?? 0)
        }
    }

    struct Progress: Comparable {
        let version: Int64
        let share: Int64

        static func < (lhs: Progress, rhs: Progress) -> Bool {
            (lhs.version, lhs.share) < (rhs.version, rhs.share)
        }
    }

    /// Whether the entry was read from the store after every acknowledged change to `key`: its
    /// counter has not moved since, and the node's listener is there to move it (or the
    /// request already had the store read once since it arrived, `reloaded`).
    package func isCurrent(_ key: TemplateKey, reloaded: Bool = false) -> Bool {
        guard let (checked, slot) = entries.withLock({ $0[key].map { ($0.checked, $0.slot) } }) else { return false }
        return checked == counters.value(at: slot) && (reloaded || !counters.listenerAbsent)
    }

    /// Loads every template that has a head, before the worker serves (blocking: at start, off
    /// the loop), so that a first request finds its template in memory. A template it cannot
    /// load now is loaded by the first request that needs it, off the loop.
    func preload() {
        do {
            for key in try store.heads().keys { reload(key) }
        } catch {
            logger.error("cannot read the templates at start; each is read when first needed", metadata: ["error": "\(error)"])
        }
    }

    /// Reads the head from the store again (blocking: never on the loop thread). Returns false
    /// when the store could not be read; the entry then keeps serving what it has.
    @discardableResult
    func reload(_ key: TemplateKey) -> Bool {
        // Read before the store: a change acknowledged after this read moves the counter
        // again, so it is never marked as seen without having been read.
        let counter = counters.value(at: ChangeCounters.slot(of: key))
        do {
            // Most reloads find what they have (the publisher's own, or a collision's).
            let before = progress(key)
            let (head, storedCanary) = try store.headState(project: key.project, namespace: key.namespace)
            if head != active(key)?.versionNumber {
                guard let stored = try store.activeVersion(project: key.project, namespace: key.namespace),
                      install(stored) != nil else { return false }
            }
            if storedCanary != canary(key)?.stored {
                guard try loadCanary(storedCanary, key: key) else { return false }
            }
            markChecked(key, counter: progress(key) > before ? announce(key, readAt: counter) : counter)
            return true
        } catch {
            logger.error("cannot load the active template", metadata: ["project": "\(key.project)", "error": "\(error)"])
            return false
        }
    }

    /// This worker read something newer than it held, which its node may not have heard of yet
    /// (another node's commit, before the listener relays it): the counter moves before any
    /// stream is told or any request answered, so every worker reads the store before it
    /// answers about `key`. Returns the value this entry may be marked with: the new one when
    /// no one else moved the counter since `readAt`.
    private func announce(_ key: TemplateKey, readAt counter: Int64) -> Int64 {
        let moved = counters.bump(key)
        return moved == counter + 1 ? moved : counter
    }

    private func markChecked(_ key: TemplateKey, counter: Int64) {
        entries.withLock { table in
            // Counters only grow; a slower concurrent reload must not move it back.
            var entry = table[key] ?? Entry(key, template: nil, checked: .min)
            entry.checked = max(entry.checked, counter)
            table[key] = entry
        }
    }

    /// Makes `stored` the active version unless a newer one is already installed; a canary it
    /// reaches (a promotion or an abort) ends. The entry stays as current as it was: a
    /// publisher still reloads once, so a concurrent publish of another worker is never hidden
    /// by its own.
    /// - Parameter compiled: `stored`'s template, compiled before it was stored, if it was.
    @discardableResult
    func install(_ stored: StoredVersion, compiled: CompiledTemplate? = nil) -> ActiveTemplate? {
        let key = TemplateKey(project: stored.project, namespace: stored.namespace)
        recentVersions.remember(stored)
        if let current = active(key), current.versionNumber >= stored.versionNumber {
            return current
        }
        guard let template = compile(stored, compiled: compiled) else { return nil }
        return entries.withLock { table in
            if let newer = table[key]?.template, newer.versionNumber >= template.versionNumber { return newer }
            var entry = table[key] ?? Entry(key, template: nil, checked: .min)
            entry.template = template
            if let canary = entry.canary, canary.version <= template.versionNumber { entry.canary = nil }
            table[key] = entry
            return template
        }
    }

    /// Serves `stored` as the running canary, compiling its version unless it is the one in
    /// memory. False when the version cannot be read or compiled. A canary that is gone from
    /// the store needs nothing: it ended with a newer active version, which `install` brought.
    private func loadCanary(_ stored: StoredCanary?, key: TemplateKey) throws -> Bool {
        guard let stored else { return true }
        if let current = canary(key), current.version == stored.canaryVersion {
            installCanary(CanaryServing(stored: stored, template: current.template))
            return true
        }
        guard let version = try store.version(project: key.project, namespace: key.namespace, number: stored.canaryVersion),
              let template = compile(version) else { return false }
        installCanary(CanaryServing(stored: stored, template: template))
        return true
    }

    /// Makes `canary` the running canary unless memory is further on: its version is above
    /// the active one, and it is not older or smaller than the canary in memory.
    func installCanary(_ canary: CanaryServing) {
        let key = TemplateKey(project: canary.stored.project, namespace: canary.stored.namespace)
        entries.withLock { table in
            var entry = table[key] ?? Entry(key, template: nil, checked: .min)
            guard canary.version > entry.template?.versionNumber ?? 0 else { return }
            if let current = entry.canary,
               (current.version, current.stored.microPercent) > (canary.version, canary.stored.microPercent) { return }
            entry.canary = canary
            table[key] = entry
        }
    }

    /// Whether this worker has read the project (its templates can be compiled).
    func knowsProject(_ id: String) -> Bool {
        projects.project(id) != nil
    }

    /// `stored` compiled for serving; nil (logged) when it does not compile, or when this worker
    /// does not know its project yet (its ETags need the project's number; a request for it
    /// reads the projects first).
    func compile(_ stored: StoredVersion, compiled: CompiledTemplate? = nil) -> ActiveTemplate? {
        guard let number = projects.project(stored.project)?.number else {
            logger.notice("a template of a project not loaded yet waits for its first request", metadata: ["project": "\(stored.project)"])
            return nil
        }
        do {
            let template = try ActiveTemplate(stored: stored, projectNumber: number, compiled: compiled)
            usage?.track(template)
            return template
        } catch {
            logger.error("stored template does not compile", metadata: ["project": "\(stored.project)", "version": "\(stored.versionNumber)", "error": "\(error)"])
            return nil
        }
    }

    /// Keys loaded here whose counter moved since they were read.
    var changedKeys: [TemplateKey] {
        let loaded = entries.withLock { table in table.map { ($0.key, $0.value.checked, $0.value.slot) } }
        return loaded.compactMap { key, checked, slot in counters.value(at: slot) == checked ? nil : key }
    }

    /// Versions of the loaded heads, to compare against the store's after a change.
    var loadedVersions: [TemplateKey: Int64] {
        entries.withLock { table in table.mapValues { $0.template?.versionNumber ?? 0 } }
    }
}
