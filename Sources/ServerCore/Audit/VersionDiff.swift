package import ConfigCore
package import ConfigStore
import Foundation

/// What one version changed against another, in the `:diff` answer's shape: answered by
/// `:diff`, kept in the audit log, sent in webhook payloads.
package struct VersionDiff: Encodable, Sendable {
    let from: String
    let to: String
    let diff: TemplateDiff

    package init(from: String, to: String, diff: TemplateDiff) {
        self.from = from
        self.to = to
        self.diff = diff
    }

    /// Version `to` of `key` against version `from` (0: the empty template), taken from `recent`
    /// when kept there, else read from the store (blocking); nil when either is gone or unreadable.
    package static func read(from: Int64, to: Int64, of key: TemplateKey, in store: any TemplateStore,
                             recent: RecentVersions? = nil) -> VersionDiff? {
        guard let before = try? template(from, of: key, in: store, recent: recent),
              let after = try? template(to, of: key, in: store, recent: recent) else { return nil }
        return VersionDiff(from: "\(from)", to: "\(to)", diff: TemplateDiff(from: before, to: after))
    }

    /// Version `number` of `key` as a template (0: the empty template), taken from `recent` when
    /// kept there, else read from the store (blocking); nil when there is no such version.
    package static func template(_ number: Int64, of key: TemplateKey, in store: any TemplateStore,
                                 recent: RecentVersions? = nil) throws -> RemoteConfigTemplate? {
        if number == 0 { return RemoteConfigTemplate() }
        guard let stored = try recent?.version(number, of: key)
            ?? store.version(project: key.project, namespace: key.namespace, number: number) else { return nil }
        return try RemoteConfigTemplate.decode(json: Data(stored.templateJSON))
    }
}
