package import ConfigCore
package import ConfigStore
import Foundation
package import ServerCore

/// Writes what `ChangeRequestMachine` says a step leads to: a step that makes no version
/// (``record(_:of:)``), or applying the request (``apply(_:_:origin:)``), whose version and
/// `applied` status commit in one transaction with the version it was based on expected.
/// Shared by the endpoint and the due-changes job; blocking, on a store lane.
package struct ChangeRequestApplier: Sendable {
    let store: any ConfigDatabase
    let updates: TemplateUpdates
    let clock: any WallClock

    package init(store: any ConfigDatabase, updates: TemplateUpdates, clock: any WallClock) {
        self.store = store
        self.updates = updates
        self.clock = clock
    }

    /// What applying did.
    enum Outcome: Sendable {
        /// A publish, a rollback, a promotion or an abort: the version it made, as it now serves
        /// (nil when it cannot be compiled, logged), and who to tell once answered.
        case version(StoredVersion, served: ActiveTemplate?, TemplateUpdates.Announcement)
        /// A canary start or a larger share: the canary as it now serves (nil when it cannot be).
        case canary(StoredCanary, serving: CanaryServing?, TemplateUpdates.Announcement)
        /// The template moved since the request's base: nothing was written but the request's
        /// `conflicted` status.
        case conflicted(StoredChangeRequest)
    }

    /// Writes `transition`, a step that makes no version, unless `stored` changed since it was
    /// read.
    /// - Throws: `StoreError.changeRequestMoved` when it did.
    func record(_ transition: ChangeRequestMachine.Transition, of stored: StoredChangeRequest) throws -> StoredChangeRequest {
        var next = stored
        next.status = transition.status.rawValue
        next.scheduleTime = transition.scheduleTime
        next.record = transition.request.encoded()
        let events = ChangeEvents.events(transition.events, next, transition.request, actor: transition.actor, time: clock.now)
        guard let written = try store.changeRequests.update(next, expectedRevision: stored.revision, events: events) else {
            throw StoreError.changeRequestMoved(stored.id)
        }
        return written
    }

    /// Applies `stored` as `applied`, the machine's transition to `applied`, says: its record
    /// (who applied it) and events are written with the change.
    /// - Parameter origin: the version's `updateOrigin`.
    /// - Throws: `StoreError.changeRequestMoved` when it changed since it was read; other
    ///   `StoreError`s as publish, rollback and the canary steps throw them.
    func apply(_ stored: StoredChangeRequest, _ applied: ChangeRequestMachine.Transition, origin: String) throws -> Outcome {
        do {
            return try write(stored, applied, origin: origin)
        } catch let error as StoreError {
            switch error {
            case .versionMismatch(let current), .canaryMismatch(let current):
                return try conflict(stored, current: current)
            case .noCanary:
                let active = try store.templates.activeVersion(project: stored.project, namespace: stored.namespace)
                return try conflict(stored, current: active?.versionNumber ?? 0)
            default:
                throw error
            }
        }
    }

    /// The change itself, marking the request applied in its transaction.
    private func write(_ stored: StoredChangeRequest, _ applied: ChangeRequestMachine.Transition, origin: String) throws -> Outcome {
        let key = TemplateKey(project: stored.project, namespace: stored.namespace)
        let request = applied.request
        let step = applied.actor ?? request.author
        var appliedRecord = stored
        appliedRecord.status = applied.status.rawValue
        var completion = ChangeRequestCompletion(
            id: stored.id, expectedRevision: stored.revision, baseVersion: request.baseVersion, events: applied.events.map(\.rawValue),
            eventData: ChangeEvents.data(appliedRecord, request, actor: step), record: request.encoded())
        var metadata = PublishMetadata(updateUser: step.name, description: request.description, updateOrigin: origin,
                                       updateType: .incrementalUpdate, completes: completion)
        switch (request.kind, request.canaryStep) {
        case (.publish, _):
            metadata.promotedFrom = request.promotedFrom
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
        return .version(version, served: served, announcement)
    }

    private func canaryCommitted(_ canary: StoredCanary, version: StoredVersion?) -> Outcome {
        let (serving, announcement) = updates.committedCanary(canary, version: version)
        return .canary(canary, serving: serving, announcement)
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
    private func conflict(_ stored: StoredChangeRequest, current: Int64) throws -> Outcome {
        let transition = try ChangeRequestMachine.take(.conflict(activeVersion: current), status: ChangeRequest.status(of: stored),
                                                       request: ChangeRequest.decode(stored))
        return .conflicted(try record(transition, of: stored))
    }
}
