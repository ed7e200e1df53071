import ConfigCore
import ConfigStore
import Dispatch
import EventLoop
import Foundation
import Logging
import Synchronization

/// Promotes the canaries whose `promoteAt` has passed (`promoteAfterSeconds`, docs/canary.md).
final class CanarySchedule: Sendable {
    private let store: any TemplateStore
    private let templates: TemplateRegistry
    private let projects: ProjectDirectory
    private let updates: TemplateUpdates
    private let storeQueue: StoreQueue
    private let logger: Logger
    /// Canaries this worker tried to promote on schedule (`project/namespace/version`), once each.
    private let tried = Mutex<Set<String>>([])

    init(store: any TemplateStore, templates: TemplateRegistry, projects: ProjectDirectory, updates: TemplateUpdates,
         storeQueue: StoreQueue, logger: Logger) {
        self.store = store
        self.templates = templates
        self.projects = projects
        self.updates = updates
        self.storeQueue = storeQueue
        self.logger = logger
    }

    /// Looks for due canaries on every tick of `loop` (call once, before the loop runs).
    func start(on loop: EventLoop) {
        loop.onTick { [self] in promoteDue() }
    }

    /// Promotes the canaries that are due (loop tick). Every worker that serves one tries
    /// once; the store's transaction lets exactly one succeed, and the others find the canary
    /// gone.
    private func promoteDue() {
        let now = Date()
        for canary in templates.canaries {
            guard let due = canary.stored.promoteAt, due <= now, projects.project(canary.stored.project) != nil,
                  tried.withLock({ $0.insert("\(canary.template.key.project)/\(canary.template.key.namespace.rawValue)/\(canary.version)").inserted })
            else { continue }
            let key = canary.template.key
            storeQueue.async { [self] in
                let metadata = PublishMetadata(
                    updateUser: canary.stored.updateUser,
                    description: TemplateStoreRules.promotionDescription(canary: canary.version) + " (scheduled)",
                    updateOrigin: "REST_API")
                do {
                    let stored = try store.promoteCanary(project: key.project, namespace: key.namespace,
                                                         expectedCanary: canary.version, metadata: metadata)
                    updates.committed(stored).1.send()
                    logger.info("canary promoted on schedule", metadata: ["project": "\(key.project)", "version": "\(stored.versionNumber)"])
                } catch StoreError.noCanary, StoreError.canaryMismatch {
                    // Another worker promoted it, or someone ended it first.
                } catch {
                    logger.error("cannot promote a canary on schedule", metadata: ["project": "\(key.project)", "error": "\(error)"])
                }
            }
        }
    }
}
