import ConfigStore
import Logging
import Synchronization

/// The active template of every (project, namespace) this worker has served, kept in memory.
///
/// Reads here never touch the store. Whether an entry may still be served is decided by the
/// group's ``ChangeCounters``: an entry is *current* while its counter holds the value read
/// just before the entry was read from the store. ``reload(_:)`` (blocking, off the loop)
/// brings an entry up to date; the application's request gate calls it before it answers from
/// an entry that is not current, so an acknowledged publish is never answered with an older
/// version by any worker.
final class TemplateRegistry: Sendable {
    private struct Entry: Sendable {
        /// Nil when nothing was published yet.
        var template: ActiveTemplate?
        /// The change counter's value when this entry was last read from the store.
        var checked: Int64
        /// `key`'s change counter, hashed once.
        let slot: Int

        init(_ key: HeadKey, template: ActiveTemplate?, checked: Int64) {
            self.template = template
            self.checked = checked
            slot = ChangeCounters.slot(of: key)
        }
    }

    private let store: RemoteConfigStore
    private let projects: ProjectDirectory
    private let counters: ChangeCounters
    private let logger: Logger
    private let entries = Mutex<[HeadKey: Entry]>([:])

    init(store: RemoteConfigStore, projects: ProjectDirectory, counters: ChangeCounters, logger: Logger) {
        self.store = store
        self.projects = projects
        self.counters = counters
        self.logger = logger
    }

    /// The template in memory (nil when none was published, or it was never loaded here).
    func active(_ key: HeadKey) -> ActiveTemplate? {
        entries.withLock { $0[key]?.template }
    }

    /// The version in memory (0 when none).
    func currentVersion(_ key: HeadKey) -> Int64 {
        active(key)?.versionNumber ?? 0
    }

    /// Whether the entry was read from the store after every acknowledged change to `key`.
    func isCurrent(_ key: HeadKey) -> Bool {
        guard let (checked, slot) = entries.withLock({ $0[key].map { ($0.checked, $0.slot) } }) else { return false }
        return checked == counters.value(at: slot)
    }

    /// Whether `key` was ever loaded here (only loaded templates can have held streams).
    func isLoaded(_ key: HeadKey) -> Bool {
        entries.withLock { $0[key] != nil }
    }

    /// Reads the head from the store again (blocking: never on the loop thread). Returns false
    /// when the store could not be read; the entry then keeps serving what it has.
    @discardableResult
    func reload(_ key: HeadKey) -> Bool {
        // Read before the store: a change acknowledged after this read moves the counter
        // again, so it is never marked as seen without having been read.
        let counter = counters.value(at: ChangeCounters.slot(of: key))
        do {
            // Most reloads find what they have (the publisher's own, or a collision's).
            let head = try store.activeVersionNumber(project: key.project, namespace: key.namespace)
            if head != active(key)?.versionNumber {
                guard let stored = try store.activeVersion(project: key.project, namespace: key.namespace),
                      install(stored) != nil else { return false }
            }
            markChecked(key, counter: counter)
            return true
        } catch {
            logger.error("cannot load the active template", metadata: ["project": "\(key.project)", "error": "\(error)"])
            return false
        }
    }

    private func markChecked(_ key: HeadKey, counter: Int64) {
        entries.withLock { table in
            // Counters only grow; a slower concurrent reload must not move it back.
            var entry = table[key] ?? Entry(key, template: nil, checked: .min)
            entry.checked = max(entry.checked, counter)
            table[key] = entry
        }
    }

    /// Makes `stored` the active version unless a newer one is already installed. The entry
    /// stays as current as it was: a publisher still reloads once, so a concurrent publish of
    /// another worker is never hidden by its own.
    @discardableResult
    func install(_ stored: StoredVersion) -> ActiveTemplate? {
        let key = HeadKey(project: stored.project, namespace: stored.namespace)
        if let current = active(key), current.versionNumber >= stored.versionNumber {
            return current
        }
        let number = projects.project(stored.project)?.number ?? stored.project
        do {
            let template = try ActiveTemplate(stored: stored, projectNumber: number)
            return entries.withLock { table in
                if let newer = table[key]?.template, newer.versionNumber >= template.versionNumber { return newer }
                table[key] = Entry(key, template: template, checked: table[key]?.checked ?? .min)
                return template
            }
        } catch {
            logger.error("stored template does not compile", metadata: ["project": "\(key.project)", "version": "\(stored.versionNumber)", "error": "\(error)"])
            return nil
        }
    }

    /// Keys loaded here whose counter moved since they were read.
    var changedKeys: [HeadKey] {
        let loaded = entries.withLock { table in table.map { ($0.key, $0.value.checked, $0.value.slot) } }
        return loaded.compactMap { key, checked, slot in counters.value(at: slot) == checked ? nil : key }
    }

    /// Versions of the loaded heads, to compare against the store's after a change.
    var loadedVersions: [HeadKey: Int64] {
        entries.withLock { table in table.mapValues { $0.template?.versionNumber ?? 0 } }
    }
}
