import ConfigCore
package import ConfigStore
import Synchronization

/// What of the control plane a worker keeps in memory, in two scopes with a change counter each
/// (`ChangeCounters`), so that a request waits only on what it reads.
package enum ControlPlaneScope: Sendable, Hashable, CaseIterable {
    /// Projects and their client API keys: all a fetch, a stream or an OFREP call reads besides
    /// its template.
    case projects
    /// Principals, memberships, tokens and change policies: what admin calls read. Console
    /// sessions are not kept: each worker looks them up (`SessionCache`).
    case access
}

/// The approval policies change control keeps in memory (`ChangePolicies`), read with the access
/// scope: declared here and wired by the composition, so that the control plane needs no feature.
package protocol ChangePolicyTable: Sendable {
    /// Replaces them with what the store holds.
    func replaceAll(_ stored: [StoredChangePolicy])
}

/// The one door for "the control plane changed", as `TemplateUpdates` is for templates: reads
/// each scope from the store into the worker's `ProjectDirectory`, `AccessControl` and
/// `ChangePolicies`, tells whether a scope is as new as every change any worker acknowledged
/// (docs/consistency.md), and is where a commit here says what it changed.
package final class ControlPlane: Sendable {
    private let store: any ConfigDatabase
    private let projects: ProjectDirectory
    private let access: AccessControl
    private let policies: any ChangePolicyTable
    private let counters: ChangeCounters
    /// The config file's projects, with the API keys declared there.
    private let declarations: [ProjectDeclaration]
    /// Each scope's counter when the scope was last read from the store.
    private let projectsChecked = Atomic<Int64>(.min)
    private let accessChecked = Atomic<Int64>(.min)

    package init(store: any ConfigDatabase, projects: ProjectDirectory, access: AccessControl, policies: any ChangePolicyTable,
         counters: ChangeCounters, declarations: [ProjectDeclaration]) {
        self.store = store
        self.projects = projects
        self.access = access
        self.policies = policies
        self.counters = counters
        self.declarations = declarations
    }

    /// Whether no worker acknowledged a change of `scope` since this worker last read it: one
    /// atomic load of each side.
    func isCurrent(_ scope: ControlPlaneScope) -> Bool {
        let read = switch scope {
        case .projects: projectsChecked.load(ordering: .sequentiallyConsistent)
        case .access: accessChecked.load(ordering: .sequentiallyConsistent)
        }
        return read == counters.value(of: scope)
    }

    /// Declares the config file's projects in the store, then loads both scopes.
    package func loadDeclared() throws {
        for declaration in declarations {
            try store.projects.upsert(StoredProject(
                id: declaration.id, number: declaration.number,
                displayName: declaration.displayName ?? declaration.id, percentSeed: declaration.percentSeed ?? ""))
        }
        try reload(.projects)
        try reload(.access)
    }

    /// After a commit here that changed `scope`, before it is acknowledged: every worker of the
    /// group reads it again before it answers what depends on it; this one at once.
    package func committed(_ scope: ControlPlaneScope) throws {
        counters.bump(scope)
        try reload(scope)
    }

    /// Reads every scope another worker or node changed since this worker read it.
    func reloadStale() throws {
        for scope in ControlPlaneScope.allCases where !isCurrent(scope) { try reload(scope) }
    }

    /// Reads `scope` from the store again, each table in one query.
    func reload(_ scope: ControlPlaneScope) throws {
        // Read the counter before the store, as templates do (see ``ChangeCounters``).
        let counter = counters.value(of: scope)
        switch scope {
        case .projects:
            let stored = try store.projects.all()
            let keys = try clientKeys(of: stored)
            projects.replaceAll(stored, environments: try store.projects.allEnvironments())
            for project in stored { access.clientKeys.replace(keys[project.id] ?? [], project: project.id) }
        case .access:
            access.setStoredAccess(StoredAccess(try store.access.records(kinds: [.principal, .membership, .token])))
            policies.replaceAll(try store.access.changePolicies())
        }
        switch scope {
        case .projects: projectsChecked.max(counter, ordering: .sequentiallyConsistent)
        case .access: accessChecked.max(counter, ordering: .sequentiallyConsistent)
        }
    }

    /// Each project's client keys, those made through the API and those of the config file.
    /// - Throws: `ConfigurationError` for a key under two projects (OFREP finds the project by
    ///   the key alone), naming both and never the key.
    private func clientKeys(of stored: [StoredProject]) throws -> [String: [ClientKeyTable.Entry]] {
        var places = FirstPlaces()
        var keys: [String: [ClientKeyTable.Entry]] = [:]
        let apiKeys = try store.projects.allAPIKeys()
        for project in stored {
            for key in apiKeys[project.id] ?? [] {
                guard let digest = SecretDigest(hex: key.keyHash) else { continue }
                let place = "the key made through the API for project '\(project.id)' (id \(ClientKeyID.of(key.keyHash)))"
                try places.note(digest.hex, at: place, owner: project.id) { ServerConfiguration.sharedClientKey(place, $0) }
                keys[project.id, default: []].append(ClientKeyTable.Entry(digest: digest, environment: key.environment))
            }
        }
        for (index, declaration) in declarations.enumerated() {
            for (keyIndex, key) in (declaration.apiKeys ?? []).enumerated() {
                let digest = SecretDigest(secret: key), place = ServerConfiguration.keyPlace(index, declaration.id, keyIndex)
                try places.note(digest.hex, at: place, owner: declaration.id) { ServerConfiguration.sharedClientKey(place, $0) }
                // The config file's keys serve production.
                keys[declaration.id, default: []].append(ClientKeyTable.Entry(digest: digest, environment: .production))
            }
        }
        return keys
    }
}
