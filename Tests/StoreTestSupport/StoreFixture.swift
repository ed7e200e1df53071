public import ConfigCore
public import ConfigStore
import Foundation

/// Opens databases over one fresh set of data (a database file, a PostgreSQL database). Every
/// call opens another database on the same data, as another process or node would.
public protocol StoreFixture: Sendable {
    /// A database with the repository's migrations, without projects.
    func open(retention: Int, clock: ManualClock?) throws -> any ConfigDatabase
}

extension StoreFixture {
    /// A database with project `p1` (number 1001, "Project One"), created when `addProject`.
    public func make(retention: Int = 300, clock: ManualClock? = nil, addProject: Bool = true) throws -> any ConfigDatabase {
        let database = try open(retention: retention, clock: clock)
        if addProject {
            try database.projects.upsert(StoredProject(id: "p1", number: "1001", displayName: "Project One"))
        }
        return database
    }
}

extension TemplateStore {
    /// Publishes `{"n":<tag>}` to p1 without a version check.
    @discardableResult
    public func publishTag(_ tag: Int, namespace: TemplateNamespace = .client) throws -> StoredVersion {
        try publish(
            project: "p1", namespace: namespace, templateJSON: Array("{\"n\":\(tag)}".utf8), expectedVersion: nil,
            metadata: PublishMetadata(updateUser: "dev@example.com", description: "tag \(tag)"))
    }

    /// The version numbers of the whole history of p1/`namespace`, newest first.
    public func versionNumbers(_ namespace: TemplateNamespace = .client) throws -> [Int64] {
        try listVersions(project: "p1", namespace: namespace).versions.map(\.versionNumber)
    }
}

extension ConfigDatabase {
    /// `templates.publishTag`.
    @discardableResult
    public func publishTag(_ tag: Int, namespace: TemplateNamespace = .client) throws -> StoredVersion {
        try templates.publishTag(tag, namespace: namespace)
    }
}

extension StoredVersion {
    /// The template bytes as text.
    public var templateText: String { String(decoding: templateJSON, as: UTF8.self) }
}

/// Runs `body(thread)` on `threads` real threads at once and waits for all of them.
public func onThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<threads {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}
