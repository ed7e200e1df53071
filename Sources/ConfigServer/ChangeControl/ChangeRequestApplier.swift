import ConfigCore
import ConfigStore
import Foundation
import HTTP1

/// Applies a change request: the version it makes and the request's `applied` status commit in
/// one transaction, with the version it was based on expected (store queue). Shared by the
/// `:apply` call and the schedule.
struct ChangeRequestApplier: Sendable {
    let store: any ConfigDatabase
    let updates: TemplateUpdates

    enum Outcome {
        /// The answer to give (the new version as served, or the canary's status), the version
        /// it made or grew, and who to tell once answered.
        case applied(HTTPResponse, versionNumber: Int64, TemplateUpdates.Announcement)
        /// The template moved since the request's base: it is now `conflicted`.
        case conflicted(StoredChangeRequest)
    }

    /// - Parameters:
    ///   - by: who applies it (its `updateUser`), and what they said.
    ///   - origin: the version's `updateOrigin`.
    /// - Throws: `StoreError.changeRequestMoved` when it changed since it was read; other
    ///   `StoreError`s as publish, rollback and the canary steps throw them.
    func apply(_ stored: StoredChangeRequest, _ request: ChangeRequest, by step: ChangeRequest.Step, origin: String,
               bypassedApproval: Bool) throws -> Outcome {
        var applied = request
        applied.appliedBy = step
        applied.bypassedApproval = bypassedApproval
        do {
            // Who applied it is written with its status and the change, in one transaction.
            return try write(stored, request, applied: applied, by: step, origin: origin)
        } catch let error as StoreError {
            switch error {
            case .versionMismatch(let current), .canaryMismatch(let current):
                return try conflict(stored, request, current: current)
            case .noCanary:
                return try conflict(stored, request, current: try store.templates.activeVersion(project: stored.project,
                                                                                      namespace: stored.namespace)?.versionNumber ?? 0)
            default:
                throw error
            }
        }
    }

    /// The change itself, marking the request applied in its transaction.
    private func write(_ stored: StoredChangeRequest, _ request: ChangeRequest, applied: ChangeRequest, by step: ChangeRequest.Step,
                       origin: String) throws -> Outcome {
        let key = TemplateKey(project: stored.project, namespace: stored.namespace)
        var appliedRecord = stored
        appliedRecord.status = ChangeStatus.applied.rawValue
        let scheduled = stored.status == ChangeStatus.scheduled.rawValue
        var completion = ChangeRequestCompletion(
            id: stored.id, expectedRevision: stored.revision, baseVersion: request.baseVersion,
            events: [WebhookEventType.changeRequestApplied.rawValue] + (scheduled ? [WebhookEventType.scheduleApplied.rawValue] : []),
            eventData: ChangeEvents.data(appliedRecord, request, actor: step), record: applied.encoded())
        var metadata = PublishMetadata(updateUser: step.name, description: request.description, updateOrigin: origin,
                                       updateType: .incrementalUpdate, completes: completion)
        switch (request.kind, request.canaryStep) {
        case (.publish, _):
            let version = try store.templates.publish(project: key.project, namespace: key.namespace, templateJSON: try templateJSON(stored, request),
                                            expectedVersion: request.baseVersion, metadata: metadata)
            return committed(version)
        case (.rollback, _):
            guard let target = request.rollbackTo else { throw APIError(500, "Change request \(stored.id) has no target.") }
            metadata.updateType = .rollback
            return committed(try store.templates.rollback(project: key.project, namespace: key.namespace, to: target, metadata: metadata))
        case (.canary, .start?):
            // The canary version is the base's successor: the publish expects the base itself.
            completion.baseVersion = nil
            metadata.completes = completion
            let seed = "canary-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let (version, canary) = try store.templates.publishCanary(
                project: key.project, namespace: key.namespace, templateJSON: try templateJSON(stored, request),
                expectedVersion: request.baseVersion, microPercent: Self.microPercent(request), seed: seed, promoteAt: nil,
                metadata: metadata)
            return canaryCommitted(canary, version: version)
        case (.canary, .share?):
            completion.baseVersion = nil
            let canary = try store.templates.setCanaryShare(project: key.project, namespace: key.namespace, expectedCanary: request.baseVersion,
                                                  microPercent: Self.microPercent(request), updateUser: step.name,
                                                  completes: completion)
            return canaryCommitted(canary, version: nil)
        case (.canary, .promote?):
            return committed(try store.templates.promoteCanary(project: key.project, namespace: key.namespace,
                                                     expectedCanary: request.baseVersion, metadata: metadata))
        case (.canary, .abort?):
            return committed(try store.templates.abortCanary(project: key.project, namespace: key.namespace,
                                                   expectedCanary: request.baseVersion, metadata: metadata))
        case (.canary, nil):
            throw APIError(500, "Change request \(stored.id) names no canary step.")
        }
    }

    private func committed(_ version: StoredVersion) -> Outcome {
        let (served, announcement) = updates.committed(version)
        return .applied(HTTPResponse.served(served), versionNumber: version.versionNumber, announcement)
    }

    private func canaryCommitted(_ canary: StoredCanary, version: StoredVersion?) -> Outcome {
        let (serving, announcement) = updates.committedCanary(canary, version: version)
        guard let serving else {
            return .applied(APIError(500, "The canary was stored but cannot be served.").response, versionNumber: canary.canaryVersion,
                            announcement)
        }
        return .applied(CanaryAdminEndpoint.canaryResponse(serving, stableVersion: canary.canaryVersion - 1),
                        versionNumber: canary.canaryVersion, announcement)
    }

    private func templateJSON(_ stored: StoredChangeRequest, _ request: ChangeRequest) throws -> [UInt8] {
        guard var template = request.template else { throw APIError(500, "Change request \(stored.id) has no template.") }
        template.version = nil
        return Array(TemplateJSON.encode(template))
    }

    private static func microPercent(_ request: ChangeRequest) -> Int64 {
        Int64(InstanceAssignment.microPercent(request.canaryPercent ?? 0))
    }

    /// Records that the template moved past the request's base: it is `conflicted`.
    private func conflict(_ stored: StoredChangeRequest, _ request: ChangeRequest, current: Int64) throws -> Outcome {
        var conflicted = request
        conflicted.conflictVersion = current
        var record = stored
        record.status = ChangeStatus.conflicted.rawValue
        record.scheduleTime = nil
        record.record = conflicted.encoded()
        let scheduled = stored.status == ChangeStatus.scheduled.rawValue
        let events = ChangeEvents.events(scheduled ? [.changeRequestConflicted, .scheduleFailed] : [.changeRequestConflicted],
                                         record, conflicted, actor: nil)
        guard let written = try store.changeRequests.update(record, expectedRevision: stored.revision, events: events) else {
            throw StoreError.changeRequestMoved(stored.id)
        }
        return .conflicted(written)
    }
}
