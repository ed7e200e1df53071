import ConfigStore
import Foundation
import ServerCore

/// Every rule of change requests (docs/change-control.md, "Statuses" and "Who may do what") in
/// one place, as values: a request in a status, a step, who takes it and the template's policy
/// give the request's next status and record and the webhook events the step writes, or why it
/// is refused. The endpoint, the applier and the due-changes job write only what it says.
///
/// The router checks the role each call needs (`RoutePermissions`) first; the machine checks
/// what depends on the request: its status, its author, its approvals, and the admin role that
/// a bypass or someone else's edit needs.
enum ChangeRequestMachine {
    /// A step someone takes through the API.
    enum Step: Sendable {
        /// Replaces the proposal with `proposal` (the endpoint fills in what the call carries).
        case edit(proposal: ChangeRequest)
        case approve
        case reject
        case cancel
        case schedule(at: Date)
        /// Applies it now; an admin may bypass missing approvals.
        case apply(bypassApproval: Bool)

        var isEdit: Bool {
            if case .edit = self { true } else { false }
        }
    }

    /// A step the server takes by itself.
    enum ServerStep: Sendable, Equatable {
        /// The due-changes job applies a scheduled request at its time, as whoever scheduled it.
        case applyOnSchedule
        /// Applying found the template past the request's base, at `activeVersion`: nothing of
        /// the change was written.
        case conflict(activeVersion: Int64)
        /// Applying a scheduled request failed for another reason (a canary running, a template
        /// gone).
        case fail(reason: String)
    }

    /// Who takes a step: what the request records of them, and their role on its project (nil:
    /// none, as for the due-changes job, which acts with the rights checked when scheduling).
    struct Actor: Sendable {
        var step: ChangeRequest.Step
        var role: Role?

        var isAdmin: Bool { role.map { $0 >= .admin } ?? false }
    }

    /// What a step leads to.
    struct Transition: Sendable {
        var status: ChangeStatus
        /// The request's record after the step.
        var request: ChangeRequest
        /// When it is to be applied; nil once it is not scheduled.
        var scheduleTime: Date?
        /// The webhook events written with the step.
        var events: [WebhookEventType]
        /// Who the events name as having taken the step (nil for what the server found).
        var actor: ChangeRequest.Step?
    }

    /// Why a step is refused.
    enum Refusal: Error, Equatable {
        /// Applied, rejected or cancelled already.
        case final(ChangeStatus)
        case notApprovable(ChangeStatus)
        case notRejectable(ChangeStatus)
        case notEditable(ChangeStatus)
        /// The schedule applies only what is still scheduled.
        case notScheduled(ChangeStatus)
        /// Self-approval is off for this template.
        case ownApproval
        case approvedAlready(name: String)
        /// Only its author or an admin may edit or cancel it.
        case notAuthorOrAdmin
        /// Conflicted with `version`: edited onto the active version first.
        case conflicted(version: Int64)
        case approvalsMissing(have: Int, need: Int)
        case bypassNeedsAdmin
        /// A publish scheduled as it is proposed skips approvals, so the template must need none.
        case scheduleNeedsNoApprovals
        case scheduleNeedsPublisher
    }

    /// Proposes `request` (its author is `actor`), open, or scheduled for `scheduleTime`: a
    /// publisher's direct publish where the template needs no approval.
    static func propose(_ request: ChangeRequest, scheduleTime: Date?, by actor: Actor,
                        policy: ChangePolicy) throws(Refusal) -> Transition {
        guard let scheduleTime else {
            return Transition(status: .open, request: request, scheduleTime: nil, events: [.changeRequestCreated], actor: actor.step)
        }
        guard !policy.requiresApproval else { throw .scheduleNeedsNoApprovals }
        guard actor.role.map({ $0 >= .publisher }) == true else { throw .scheduleNeedsPublisher }
        var scheduled = request
        scheduled.scheduledBy = actor.step
        return Transition(status: .scheduled, request: scheduled, scheduleTime: scheduleTime,
                          events: [.changeRequestCreated, .changeRequestScheduled], actor: actor.step)
    }

    /// Takes `step`, by `actor`, on `request`, now in `status`.
    static func take(_ step: Step, status: ChangeStatus, request: ChangeRequest, by actor: Actor,
                     policy: ChangePolicy) throws(Refusal) -> Transition {
        var next = request
        let isAuthor = request.author.principal == actor.step.principal
        func to(_ status: ChangeStatus, _ events: [WebhookEventType], scheduleTime: Date? = nil) -> Transition {
            Transition(status: status, request: next, scheduleTime: scheduleTime, events: events, actor: actor.step)
        }
        // Nothing is left to do on a request applied, rejected or cancelled; an edit says why.
        if status.isFinal, !step.isEdit { throw .final(status) }
        switch step {
        case .edit(let proposal):
            guard isAuthor || actor.isAdmin else { throw .notAuthorOrAdmin }
            guard [.open, .approved, .conflicted].contains(status) else { throw .notEditable(status) }
            // A new proposal needs its approvals again.
            next = proposal
            next.approvals = []
            next.conflictVersion = nil
            return to(.open, [.changeRequestEdited])
        case .approve:
            guard status == .open || status == .approved else { throw .notApprovable(status) }
            guard !isAuthor || policy.allowSelfApproval else { throw .ownApproval }
            guard !request.isApproved(by: actor.step.principal) else { throw .approvedAlready(name: actor.step.name) }
            next.approvals.append(actor.step)
            return to(next.approvals.count >= policy.requiredApprovals ? .approved : .open, [.changeRequestApproved])
        case .reject:
            guard status == .open || status == .approved else { throw .notRejectable(status) }
            next.rejection = actor.step
            return to(.rejected, [.changeRequestRejected])
        case .cancel:
            guard isAuthor || actor.isAdmin else { throw .notAuthorOrAdmin }
            next.cancellation = actor.step
            return to(.cancelled, [.changeRequestCancelled])
        case .schedule(let time):
            try requireApplicable(request, status: status, policy: policy, bypass: false, by: actor)
            next.scheduledBy = actor.step
            return to(.scheduled, [.changeRequestScheduled], scheduleTime: time)
        case .apply(let bypass):
            try requireApplicable(request, status: status, policy: policy, bypass: bypass, by: actor)
            next.appliedBy = actor.step
            next.bypassedApproval = bypassesApproval(request, policy: policy, bypass: bypass)
            return to(.applied, [.changeRequestApplied] + (status == .scheduled ? [.scheduleApplied] : []))
        }
    }

    /// Takes the server's `step` on `request`, now in `status`.
    static func take(_ step: ServerStep, status: ChangeStatus, request: ChangeRequest) throws(Refusal) -> Transition {
        var next = request
        switch step {
        case .applyOnSchedule:
            guard status == .scheduled else { throw .notScheduled(status) }
            let actor = request.scheduledBy ?? request.author
            next.appliedBy = actor
            next.bypassedApproval = false
            return Transition(status: .applied, request: next, scheduleTime: nil, events: [.changeRequestApplied, .scheduleApplied],
                              actor: actor)
        case .conflict(let version):
            guard !status.isFinal else { throw .final(status) }
            next.conflictVersion = version
            return suspended(next, scheduled: status == .scheduled)
        case .fail(let reason):
            guard status == .scheduled else { throw .notScheduled(status) }
            next.failure = reason
            return suspended(next, scheduled: true)
        }
    }

    /// Whether an apply (or a schedule) bypasses missing approvals, which the audit log records
    /// before the change.
    static func bypassesApproval(_ request: ChangeRequest, policy: ChangePolicy, bypass: Bool) -> Bool {
        bypass && request.approvals.count < policy.requiredApprovals
    }

    /// Applied (or scheduled) once it has the approvals the policy needs, or by an admin who
    /// bypasses them; a conflicted one is edited onto the active version first.
    private static func requireApplicable(_ request: ChangeRequest, status: ChangeStatus, policy: ChangePolicy, bypass: Bool,
                                          by actor: Actor) throws(Refusal) {
        guard status != .conflicted else { throw .conflicted(version: request.conflictVersion ?? 0) }
        guard request.approvals.count < policy.requiredApprovals else { return }
        guard bypass else { throw .approvalsMissing(have: request.approvals.count, need: policy.requiredApprovals) }
        guard actor.isAdmin else { throw .bypassNeedsAdmin }
    }

    /// Conflicted: suspended until edited, no longer scheduled; the schedule's failure is
    /// reported as such.
    private static func suspended(_ request: ChangeRequest, scheduled: Bool) -> Transition {
        Transition(status: .conflicted, request: request, scheduleTime: nil,
                   events: [.changeRequestConflicted] + (scheduled ? [.scheduleFailed] : []), actor: nil)
    }
}
