import ConfigCore
import ConfigStore
import Foundation

/// Applies a change request: the version it makes and the request's `applied` status commit in
/// one transaction, with the version it was based on expected (store queue). Shared by the
/// `:apply` call and the schedule.
struct ChangeRequestApplier: Sendable {
    let store: any TemplateStore
    let updates: TemplateUpdates

    enum Outcome {
        /// The version it made, what serves it, and who to tell once answered.
        case applied(StoredVersion, ActiveTemplate?, TemplateUpdates.Announcement)
        /// The template moved since the request's base: it is now `conflicted`.
        case conflicted(StoredChangeRequest)
    }

    /// - Parameters:
    ///   - by: who applies it (its `updateUser`), and what they said.
    ///   - origin: the version's `updateOrigin`.
    /// - Throws: `StoreError.changeRequestMoved` when it changed since it was read; other
    ///   `StoreError`s as publish and rollback throw them.
    func apply(_ stored: StoredChangeRequest, _ request: ChangeRequest, by step: ChangeRequest.Step, origin: String,
               bypassedApproval: Bool) throws -> Outcome {
        var applied = request
        applied.appliedBy = step
        applied.bypassedApproval = bypassedApproval
        let completion = ChangeRequestCompletion(id: stored.id, expectedRevision: stored.revision, baseVersion: request.baseVersion)
        var metadata = PublishMetadata(updateUser: step.name, description: request.description, updateOrigin: origin,
                                       updateType: .incrementalUpdate, completes: completion)
        do {
            let version: StoredVersion
            switch request.kind {
            case .publish:
                guard var template = request.template else { throw APIError(500, "Change request \(stored.id) has no template.") }
                template.version = nil
                version = try store.publish(project: stored.project, namespace: stored.namespace,
                                            templateJSON: Array(TemplateJSON.encode(template)), expectedVersion: request.baseVersion,
                                            metadata: metadata)
            case .rollback:
                guard let target = request.rollbackTo else { throw APIError(500, "Change request \(stored.id) has no target.") }
                metadata.updateType = .rollback
                version = try store.rollback(project: stored.project, namespace: stored.namespace, to: target, metadata: metadata)
            }
            // The record keeps who applied it; its status and version were written with the version.
            if let current = try store.changeRequest(id: stored.id) {
                _ = try store.updateChangeRequest(
                    StoredChangeRequest(id: current.id, project: current.project, namespace: current.namespace,
                                        status: current.status, record: applied.encoded()),
                    expectedRevision: current.revision)
            }
            let (served, announcement) = updates.committed(version)
            return .applied(version, served, announcement)
        } catch StoreError.versionMismatch(let current) {
            var conflicted = request
            conflicted.conflictVersion = current
            var record = stored
            record.status = ChangeStatus.conflicted.rawValue
            record.scheduleTime = nil
            record.record = conflicted.encoded()
            guard let written = try store.updateChangeRequest(record, expectedRevision: stored.revision) else {
                throw StoreError.changeRequestMoved(stored.id)
            }
            return .conflicted(written)
        }
    }
}
