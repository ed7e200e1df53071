/// Every error a store of `ConfigDatabase` throws; callers map it to API responses in one place.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `expectedVersion` was not the active version; `current` is (0 before the first publish).
    case versionMismatch(current: Int64)
    /// The version does not exist: never published, or pruned by retention.
    case versionNotFound(Int64)
    /// A rollback must name a version older than the active one.
    case rollbackTargetNotOlder(target: Int64, current: Int64)
    /// No project has this ID.
    case projectNotFound(String)
    /// The project has no environment with this id.
    case environmentNotFound(project: String, id: String)
    /// The project already has an environment with this id.
    case environmentExists(project: String, id: String)
    /// The environment cannot be deleted: production, or one holding templates or API keys
    /// (`reason` says which).
    case environmentInUse(project: String, id: String, reason: String)
    /// `ProjectStore.upsert` would give a second project the same number.
    case projectNumberTaken(number: String, project: String)
    /// A `pageToken` this store did not issue.
    case invalidPageToken(String)
    /// An argument out of range; the message names it.
    case invalidArgument(String)
    /// Publishes and rollbacks wait while a canary runs: promote or abort it first.
    case canaryRunning(version: Int64)
    /// Promote, abort and share changes need a running canary.
    case noCanary
    /// `expectedCanary` was not the running canary's version.
    case canaryMismatch(current: Int64)
    /// The change request a publish would apply was changed (approved, edited, applied or
    /// cancelled) since it was read: nothing was written.
    case changeRequestMoved(Int64)
    /// The engine cannot answer now: busy past its timeout, unreachable, out of space, closed
    /// or failing. Callers retry later; a write that failed so may or may not have committed.
    /// The message is the engine's, without credentials.
    case unavailable(String)
    /// The engine failed after it was asked to commit, before it said whether it did: the
    /// change may or may not be there, and it must not be made again as if it were not. The
    /// message is the engine's, without credentials.
    case outcomeUnknown(String)
    /// The disk under the engine is full: nothing of the change was written (its transaction
    /// rolled back). Reads still work; writes work again once space is freed.
    case outOfSpace(String)

    public var description: String {
        switch self {
        case .versionMismatch(let current):
            "version mismatch: the active version is \(current)"
        case .versionNotFound(let number):
            "version \(number) not found (never published or no longer retained)"
        case .rollbackTargetNotOlder(let target, let current):
            "cannot roll back to version \(target): it must be older than the active version \(current)"
        case .projectNotFound(let id):
            "project '\(id)' not found"
        case .environmentNotFound(let project, let id):
            "project '\(project)' has no environment '\(id)'"
        case .environmentExists(let project, let id):
            "project '\(project)' already has an environment '\(id)'"
        case .environmentInUse(let project, let id, let reason):
            "environment '\(id)' of project '\(project)' cannot be deleted: \(reason)"
        case .projectNumberTaken(let number, let project):
            "project number \(number) already belongs to project '\(project)'"
        case .invalidPageToken(let token):
            "invalid pageToken '\(token)'"
        case .invalidArgument(let message):
            message
        case .canaryRunning(let version):
            "version \(version) is being published to a share of the instances: promote or abort it first"
        case .noCanary:
            "no canary is running"
        case .canaryMismatch(let current):
            "canary mismatch: the running canary is version \(current)"
        case .changeRequestMoved(let id):
            "change request \(id) changed since it was read"
        case .unavailable(let reason):
            "the store is unavailable: \(reason)"
        case .outcomeUnknown(let reason):
            "the store did not say whether the change committed: \(reason)"
        case .outOfSpace(let reason):
            "the store's disk is full: \(reason)"
        }
    }
}
