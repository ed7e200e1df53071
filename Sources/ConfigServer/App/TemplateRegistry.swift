import ConfigStore
import Logging
import Synchronization

/// The active template of every (project, namespace), loaded from the store on first use and
/// replaced when a newer version is published here or in another worker.
final class TemplateRegistry: Sendable {
    private enum Entry: Sendable {
        case none
        case active(ActiveTemplate)
    }

    private let store: RemoteConfigStore
    private let projects: ProjectDirectory
    private let logger: Logger
    private let entries = Mutex<[HeadKey: Entry]>([:])

    init(store: RemoteConfigStore, projects: ProjectDirectory, logger: Logger) {
        self.store = store
        self.projects = projects
        self.logger = logger
    }

    /// The active template, or nil when nothing was published yet.
    func active(_ key: HeadKey) -> ActiveTemplate? {
        if let entry = entries.withLock({ $0[key] }) {
            if case .active(let template) = entry { return template }
            return nil
        }
        return reload(key)
    }

    /// The active version number (0 when none).
    func currentVersion(_ key: HeadKey) -> Int64 {
        active(key)?.versionNumber ?? 0
    }

    /// Reads the head from the store again; returns the (possibly new) active template.
    @discardableResult
    func reload(_ key: HeadKey) -> ActiveTemplate? {
        do {
            guard let stored = try store.activeVersion(project: key.project, namespace: key.namespace) else {
                entries.withLock { $0[key] = Entry.none }
                return nil
            }
            return install(stored)
        } catch {
            logger.error("cannot load the active template", metadata: ["project": "\(key.project)", "error": "\(error)"])
            return nil
        }
    }

    /// Makes `stored` the active version unless a newer one is already installed.
    @discardableResult
    func install(_ stored: StoredVersion) -> ActiveTemplate? {
        let key = HeadKey(project: stored.project, namespace: stored.namespace)
        if let current = entries.withLock({ $0[key] }), case .active(let template) = current,
           template.versionNumber >= stored.versionNumber {
            return template
        }
        let number = projects.project(stored.project)?.number ?? stored.project
        do {
            let template = try ActiveTemplate(stored: stored, projectNumber: number)
            return entries.withLock { table in
                if case .active(let newer)? = table[key], newer.versionNumber >= template.versionNumber { return newer }
                table[key] = .active(template)
                return template
            }
        } catch {
            logger.error("stored template does not compile", metadata: ["project": "\(key.project)", "version": "\(stored.versionNumber)", "error": "\(error)"])
            return nil
        }
    }

    /// Versions of the loaded heads, to compare against the store's after a change.
    var loadedVersions: [HeadKey: Int64] {
        entries.withLock { table in
            table.mapValues { entry in
                if case .active(let template) = entry { return template.versionNumber }
                return 0
            }
        }
    }
}
