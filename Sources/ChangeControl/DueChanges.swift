import ConfigCore
package import ConfigStore
import Foundation
package import Logging
package import ServerCore
import Synchronization

/// Applies each change set to happen at a time once that time has come: a change request
/// scheduled for it (docs/change-control.md, "Scheduled publishes") and a canary to be promoted
/// then (`promoteAfterSeconds`, docs/canary.md). One job, `due changes`, run by each node's
/// leader four times a second, so a change is applied within a second of its time. When several
/// nodes find the same change due, the store's conditional write lets one apply it (a request's
/// revision, a canary's version) and the others find it done. Both kinds are stored, so a
/// restart loses nothing: what came due while every node was down is applied at start.
package final class DueChanges: Sendable {
    static let name = "due changes"
    /// How often the leader looks: requests scheduled on other nodes are known only to the store.
    static let interval: TimeInterval = 0.25

    /// A change whose time has come.
    enum Change {
        case request(StoredChangeRequest)
        case canaryPromotion(CanaryServing)

        var time: Date {
            switch self {
            case .request(let stored): stored.scheduleTime ?? .distantPast
            case .canaryPromotion(let canary): canary.stored.promoteAt ?? .distantPast
            }
        }
    }

    private let store: any ConfigDatabase
    private let applier: ChangeRequestApplier
    private let templates: TemplateRegistry
    private let projects: ProjectDirectory
    private let updates: TemplateUpdates
    private let audit: AuditTrail
    private let logger: Logger
    /// Canary versions (`project/namespace/version`) this worker promoted, or will not try to
    /// promote again: until the registry reads the template again it still lists them.
    private let settledCanaries = Mutex<Set<String>>([])

    package init(store: any ConfigDatabase, applier: ChangeRequestApplier, templates: TemplateRegistry, projects: ProjectDirectory,
         updates: TemplateUpdates, audit: AuditTrail, logger: Logger) {
        self.store = store
        self.applier = applier
        self.templates = templates
        self.projects = projects
        self.updates = updates
        self.audit = audit
        self.logger = logger
    }

    package var job: Job {
        Job(Self.name, scope: .leaderOnly) { [self] now, _ in
            for change in due(at: now) { apply(change) }
            return now.addingTimeInterval(Self.interval)
        }
    }

    /// What is due at `now`, earliest first.
    func due(at now: Date) -> [Change] {
        var changes: [Change] = []
        do {
            changes = try store.changeRequests.due(at: now).map(Change.request)
        } catch {
            // The store is unwell: the next look tries again; nothing is lost.
        }
        for canary in templates.canaries {
            guard let promoteAt = canary.stored.promoteAt, promoteAt <= now, projects.project(canary.stored.project) != nil,
                  !settledCanaries.withLock({ $0.contains(Self.settledKey(canary)) }) else { continue }
            changes.append(.canaryPromotion(canary))
        }
        return changes.sorted { $0.time < $1.time }
    }

    func apply(_ change: Change) {
        switch change {
        case .request(let stored): apply(stored)
        case .canaryPromotion(let canary): promote(canary)
        }
    }

    // MARK: Scheduled change requests

    private func apply(_ stored: StoredChangeRequest) {
        let request: ChangeRequest
        let applied: ChangeRequestMachine.Transition
        do {
            request = try ChangeRequest.decode(stored)
            applied = try ChangeRequestMachine.take(.applyOnSchedule, status: ChangeRequest.status(of: stored), request: request)
        } catch {
            logger.error("a scheduled change request cannot be applied", metadata: ["id": "\(stored.id)", "error": "\(error)"])
            return
        }
        let actor = applied.actor ?? request.author
        do {
            switch try applier.apply(stored, applied, origin: UpdateOrigin.restAPI.rawValue) {
            case .version(let version, _, let announcement):
                audit.scheduled(stored, actor: (actor.principal, actor.name), outcome: "ok", version: version.versionNumber)
                announcement.send()
            case .canary(let canary, _, let announcement):
                audit.scheduled(stored, actor: (actor.principal, actor.name), outcome: "ok", version: canary.canaryVersion)
                announcement.send()
            case .conflicted(let written):
                let current = (try? ChangeRequest.decode(written))?.conflictVersion ?? 0
                audit.scheduled(stored, actor: (actor.principal, actor.name),
                                outcome: "conflicted: the template is at version \(current)", version: nil)
            }
        } catch StoreError.changeRequestMoved {
            // Applied by another node, or cancelled or rescheduled meanwhile: nothing to do.
        } catch StoreError.unavailable {
            // Tried again on the next look.
        } catch {
            suspend(stored, request, because: "\(error)", actor: actor)
        }
    }

    /// A scheduled request that cannot be applied for another reason (a canary running, a
    /// template gone) is suspended as conflicted, with the reason, and reported.
    private func suspend(_ stored: StoredChangeRequest, _ request: ChangeRequest, because reason: String, actor: ChangeRequest.Step) {
        guard let failed = try? ChangeRequestMachine.take(.fail(reason: reason), status: .scheduled, request: request),
              (try? applier.record(failed, of: stored)) != nil else { return }
        audit.scheduled(stored, actor: (actor.principal, actor.name), outcome: "failed: \(reason)", version: nil)
    }

    // MARK: Canary promotions

    private func promote(_ canary: CanaryServing) {
        let key = canary.template.key
        let metadata = PublishMetadata(
            updateUser: canary.stored.updateUser,
            description: TemplateStoreRules.promotionDescription(canary: canary.version) + " (scheduled)",
            updateOrigin: UpdateOrigin.restAPI.rawValue)
        do {
            let stored = try store.templates.promoteCanary(project: key.project, namespace: key.namespace, expectedCanary: canary.version,
                                                 metadata: metadata)
            settle(canary)
            updates.committed(stored).1.send()
            logger.info("canary promoted on schedule", metadata: ["project": "\(key.project)", "version": "\(stored.versionNumber)"])
        } catch StoreError.noCanary, StoreError.canaryMismatch {
            // Another node promoted it, or someone ended it first.
            settle(canary)
        } catch StoreError.unavailable {
            // Tried again on the next look.
        } catch {
            settle(canary)
            logger.error("cannot promote a canary on schedule", metadata: ["project": "\(key.project)", "error": "\(error)"])
        }
    }

    private func settle(_ canary: CanaryServing) {
        settledCanaries.withLock { _ = $0.insert(Self.settledKey(canary)) }
    }

    private static func settledKey(_ canary: CanaryServing) -> String {
        "\(canary.template.key.project)/\(canary.template.key.namespace.rawValue)/\(canary.version)"
    }
}
