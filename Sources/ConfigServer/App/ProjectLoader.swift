import ConfigStore
import Synchronization

/// Reads the projects, their API keys, the access records (principals, memberships, tokens,
/// sessions) and the templates' change policies from the store into the worker's `ProjectDirectory` and `AccessControl`, and tells whether
/// they are as new as every change any worker acknowledged (docs/consistency.md).
final class ProjectLoader: Sendable {
    private let store: any TemplateStore
    private let projects: ProjectDirectory
    private let access: AccessControl
    private let policies: ChangePolicies
    private let counters: ChangeCounters
    /// The config file's projects, with the API keys declared there.
    private let declarations: [ProjectDeclaration]
    /// The projects counter when projects and keys were last read from the store.
    private let checked = Atomic<Int64>(.min)

    init(store: any TemplateStore, projects: ProjectDirectory, access: AccessControl, policies: ChangePolicies,
         counters: ChangeCounters, declarations: [ProjectDeclaration]) {
        self.store = store
        self.projects = projects
        self.access = access
        self.policies = policies
        self.counters = counters
        self.declarations = declarations
    }

    /// Whether no worker acknowledged a change of projects or keys since the last read.
    var isCurrent: Bool {
        checked.load(ordering: .sequentiallyConsistent) == counters.projects
    }

    /// Declares the config file's projects in the store, then loads every project and key.
    func loadDeclared() throws {
        for declaration in declarations {
            try store.upsertProject(StoredProject(
                id: declaration.id, number: declaration.number,
                displayName: declaration.displayName ?? declaration.id, percentSeed: declaration.percentSeed ?? ""))
        }
        try reload()
    }

    /// Reads projects and API keys from the store again (another worker may have added some).
    func reload() throws {
        // Read before the store, as templates do (see ``ChangeCounters``).
        let counter = counters.projects
        let stored = try store.projects()
        let keys = try clientKeys(of: stored)
        projects.replaceAll(stored)
        for project in stored { access.setAPIKeyDigests(keys[project.id] ?? [], project: project.id) }
        access.setStoredAccess(StoredAccess(try store.accessRecords()))
        policies.replaceAll(try store.changePolicies())
        checked.max(counter, ordering: .sequentiallyConsistent)
    }

    /// Each project's client keys, those made through the API and those of the config file.
    /// - Throws: `ConfigurationError` for a key under two projects (OFREP finds the project by
    ///   the key alone), naming both and never the key.
    private func clientKeys(of stored: [StoredProject]) throws -> [String: [SecretDigest]] {
        var places = FirstPlaces()
        var keys: [String: [SecretDigest]] = [:]
        for project in stored {
            for key in try store.apiKeys(project: project.id) {
                guard let digest = SecretDigest(hex: key.keyHash) else { continue }
                let place = "the key made through the API for project '\(project.id)' (id \(ProjectAdminEndpoint.keyID(key.keyHash)))"
                try places.note(digest.hex, at: place, owner: project.id) { ServerConfiguration.sharedClientKey(place, $0) }
                keys[project.id, default: []].append(digest)
            }
        }
        for (index, declaration) in declarations.enumerated() {
            for (keyIndex, key) in (declaration.apiKeys ?? []).enumerated() {
                let digest = SecretDigest(secret: key), place = ServerConfiguration.keyPlace(index, declaration.id, keyIndex)
                try places.note(digest.hex, at: place, owner: declaration.id) { ServerConfiguration.sharedClientKey(place, $0) }
                keys[declaration.id, default: []].append(digest)
            }
        }
        return keys
    }
}
