package import ConfigStore

/// The stored versions this worker installed last, by template and number. A publish's audit
/// entry diffs its version against the one before on the way to the answer: both are usually
/// here, so the answer does not wait for two more reads of the store. A version never changes
/// once stored, so what is kept is never stale; what is not kept is read from the store.
package final class RecentVersions: Sendable {
    private struct Number: Hashable, Sendable {
        let key: TemplateKey
        let version: Int64
    }

    /// A few: the versions a publish diffs are the newest two of its template.
    private let versions = ResettingCache<Number, StoredVersion>(capacity: 16)

    package init() {}

    /// Keeps `stored` (installed, or read to be).
    func remember(_ stored: StoredVersion) {
        versions.store(stored, for: Number(key: TemplateKey(project: stored.project, namespace: stored.namespace),
                                           version: stored.versionNumber))
    }

    /// Version `number` of `key`, if kept.
    package func version(_ number: Int64, of key: TemplateKey) -> StoredVersion? {
        versions.cached(Number(key: key, version: number))
    }
}
