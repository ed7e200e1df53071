import ConfigCore
import ConfigStore
import Dispatch
import Foundation
import Logging
import Synchronization

/// Applies the change requests scheduled for a time once it has come (docs/change-control.md,
/// "Scheduled publishes"). One worker of each node looks four times a second; when several
/// nodes find the same request due, the transaction that applies it lets one win and the
/// others find it applied, so it is applied exactly once. It is stored, so a restart loses
/// nothing: a request whose time passed while every node was down is applied at start.
final class ChangeSchedule: Sendable {
    private let store: any ChangeRequestStore
    private let applier: ChangeRequestApplier
    private let audit: AuditTrail
    private let storeQueue: StoreQueue
    private let logger: Logger
    /// Made by `start` (once, before the loop runs) and held while the schedule runs. Made there,
    /// not here: libdispatch crashes on releasing a source that was never resumed, and only
    /// one worker of each node starts the schedule.
    private nonisolated(unsafe) var source: (any DispatchSourceTimer)?
    /// Set while a look waits on the busy store queue: looks do not pile up behind it.
    private let looking = Atomic<Bool>(false)
    static let interval: DispatchTimeInterval = .milliseconds(250)

    init(store: any ChangeRequestStore, applier: ChangeRequestApplier, audit: AuditTrail, storeQueue: StoreQueue, logger: Logger) {
        self.store = store
        self.applier = applier
        self.audit = audit
        self.storeQueue = storeQueue
        self.logger = logger
    }

    /// Looks for due requests from now on, on the store queue (call once).
    func start() {
        let timer = DispatchSource.makeTimerSource()
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(20))
        timer.setEventHandler { [self] in
            guard looking.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
            storeQueue.async {
                self.applyDue()
                self.looking.store(false, ordering: .releasing)
            }
        }
        timer.resume()
        source = timer
    }

    private func applyDue() {
        let due: [StoredChangeRequest]
        do {
            due = try store.due(at: Date())
        } catch {
            // The store is unwell: the next look tries again; nothing is lost.
            return
        }
        for stored in due { apply(stored) }
    }

    private func apply(_ stored: StoredChangeRequest) {
        let request: ChangeRequest
        do {
            request = try ChangeRequest.decode(stored)
        } catch {
            logger.error("a scheduled change request cannot be read", metadata: ["id": "\(stored.id)"])
            return
        }
        let actor = request.scheduledBy ?? request.author
        do {
            switch try applier.apply(stored, request, by: actor, origin: UpdateOrigin.restAPI.rawValue, bypassedApproval: false) {
            case .applied(_, let version, let announcement):
                audit.scheduled(stored, actor: actor, outcome: "ok", version: version)
                announcement.send()
            case .conflicted(let written):
                let current = (try? ChangeRequest.decode(written))?.conflictVersion ?? 0
                audit.scheduled(stored, actor: actor, outcome: "conflicted: the template is at version \(current)", version: nil)
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
    private func suspend(_ stored: StoredChangeRequest, _ request: ChangeRequest, because reason: String,
                         actor: ChangeRequest.Step) {
        var failed = request
        failed.failure = reason
        var record = stored
        record.status = ChangeStatus.conflicted.rawValue
        record.scheduleTime = nil
        record.record = failed.encoded()
        let events = ChangeEvents.events([.changeRequestConflicted, .scheduleFailed], record, failed, actor: nil)
        guard (try? store.update(record, expectedRevision: stored.revision, events: events)) != nil else { return }
        audit.scheduled(stored, actor: actor, outcome: "failed: \(reason)", version: nil)
    }
}
