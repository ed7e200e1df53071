@testable import ChangeControl
import ConfigCore
import ConfigStore
@testable import ServerCore
import Foundation
import Testing

/// Every transition and refusal of the change-request rules, as values (docs/change-control.md,
/// "Statuses" and "Who may do what").
@Suite struct ChangeRequestMachineTests {
    typealias Machine = ChangeRequestMachine
    static let time = Timestamp(Date(timeIntervalSince1970: 1_800_000_000))
    static let later = Date(timeIntervalSince1970: 1_800_003_600)

    static func step(_ principal: String, comment: String? = nil) -> ChangeRequest.Step {
        ChangeRequest.Step(principal: principal, name: principal, comment: comment, time: time)
    }

    static func actor(_ principal: String, _ role: Role?) -> Machine.Actor {
        Machine.Actor(step: step(principal), role: role)
    }

    static let author = actor("author", .editor)
    static let publisher = actor("publisher", .publisher)
    static let otherPublisher = actor("other", .publisher)
    static let admin = actor("admin", .admin)

    static func request(approvedBy approvers: [String] = [], conflictVersion: Int64? = nil) -> ChangeRequest {
        var request = ChangeRequest(kind: .publish, baseVersion: 3, description: "d", author: step("author"))
        request.approvals = approvers.map { step($0) }
        request.conflictVersion = conflictVersion
        return request
    }

    static func policy(approvals: Int, selfApproval: Bool = false) -> ChangePolicy {
        var policy = ChangePolicy()
        policy.requiredApprovals = approvals
        policy.allowSelfApproval = selfApproval
        return policy
    }

    static func take(_ step: Machine.Step, _ status: ChangeStatus, _ request: ChangeRequest = request(), by actor: Machine.Actor,
                     policy: ChangePolicy = policy(approvals: 1)) throws(Machine.Refusal) -> Machine.Transition {
        try Machine.take(step, status: status, request: request, by: actor, policy: policy)
    }

    static func refusal(_ take: () throws(Machine.Refusal) -> Machine.Transition) -> Machine.Refusal? {
        do {
            _ = try take()
            return nil
        } catch {
            return error
        }
    }

    // MARK: Proposing

    @Test func aProposalIsOpen() throws {
        let proposed = try Machine.propose(Self.request(), scheduleTime: nil, by: Self.author, policy: Self.policy(approvals: 2))
        #expect(proposed.status == .open && proposed.scheduleTime == nil && proposed.events == [.changeRequestCreated])
        #expect(proposed.actor == Self.author.step && proposed.request.scheduledBy == nil)
    }

    @Test func aPublisherSchedulesADirectPublishWhereNoApprovalIsNeeded() throws {
        let proposed = try Machine.propose(Self.request(), scheduleTime: Self.later, by: Self.publisher, policy: Self.policy(approvals: 0))
        #expect(proposed.status == .scheduled && proposed.scheduleTime == Self.later)
        #expect(proposed.events == [.changeRequestCreated, .changeRequestScheduled])
        #expect(proposed.request.scheduledBy == Self.publisher.step)
    }

    @Test func aScheduledProposalNeedsATemplateWithoutApprovalsAndAPublisher() {
        #expect(Self.refusal { () throws(Machine.Refusal) in
            try Machine.propose(Self.request(), scheduleTime: Self.later, by: Self.admin, policy: Self.policy(approvals: 1))
        } == .scheduleNeedsNoApprovals)
        #expect(Self.refusal { () throws(Machine.Refusal) in
            try Machine.propose(Self.request(), scheduleTime: Self.later, by: Self.author, policy: Self.policy(approvals: 0))
        } == .scheduleNeedsPublisher)
    }

    // MARK: Final statuses

    static let calls: [Machine.Step] = [.approve, .reject, .cancel, .schedule(at: later), .apply(bypassApproval: true)]

    @Test(arguments: [ChangeStatus.applied, .rejected, .cancelled])
    func aFinalRequestTakesNoStep(status: ChangeStatus) {
        #expect(status.isFinal)
        for step in Self.calls {
            #expect(Self.refusal { () throws(Machine.Refusal) in try Self.take(step, status, by: Self.admin) } == .final(status))
        }
        #expect(Self.refusal { () throws(Machine.Refusal) in
            try Self.take(.edit(proposal: Self.request()), status, by: Self.author)
        } == .notEditable(status))
    }

    @Test func onlyAppliedRejectedAndCancelledAreFinal() {
        #expect(ChangeStatus.allCases.filter(\.isFinal) == [.applied, .rejected, .cancelled])
    }

    // MARK: Approving

    @Test func approvalsFromDistinctPublishersMakeItApproved() throws {
        let policy = Self.policy(approvals: 2)
        let first = try Self.take(.approve, .open, by: Self.publisher, policy: policy)
        #expect(first.status == .open && first.request.approvals == [Self.publisher.step] && first.events == [.changeRequestApproved])
        let second = try Self.take(.approve, .open, first.request, by: Self.otherPublisher, policy: policy)
        #expect(second.status == .approved && second.request.approvals.count == 2 && second.scheduleTime == nil)
        // An approved request takes more approvals and stays approved.
        let third = try Self.take(.approve, .approved, second.request, by: Self.admin, policy: policy)
        #expect(third.status == .approved && third.request.approvals.count == 3)
    }

    @Test func anApprovalComesOncePerPerson() {
        #expect(Self.refusal { () throws(Machine.Refusal) in
            try Self.take(.approve, .open, Self.request(approvedBy: ["publisher"]), by: Self.publisher, policy: Self.policy(approvals: 2))
        } == .approvedAlready(name: "publisher"))
    }

    @Test func theAuthorApprovesOnlyWhereThePolicyAllowsIt() throws {
        let author = Self.actor("author", .publisher)
        #expect(Self.refusal { () throws(Machine.Refusal) in try Self.take(.approve, .open, by: author) } == .ownApproval)
        let approved = try Self.take(.approve, .open, by: author, policy: Self.policy(approvals: 1, selfApproval: true))
        #expect(approved.status == .approved)
    }

    @Test(arguments: [ChangeStatus.scheduled, .conflicted])
    func onlyAnOpenOrApprovedRequestIsApprovedOrRejected(status: ChangeStatus) {
        #expect(Self.refusal { () throws(Machine.Refusal) in try Self.take(.approve, status, by: Self.publisher) }
            == .notApprovable(status))
        #expect(Self.refusal { () throws(Machine.Refusal) in try Self.take(.reject, status, by: Self.publisher) }
            == .notRejectable(status))
    }

    // MARK: Rejecting and cancelling

    @Test(arguments: [ChangeStatus.open, .approved])
    func aPublisherRejects(status: ChangeStatus) throws {
        let rejected = try Self.take(.reject, status, by: Self.publisher)
        #expect(rejected.status == .rejected && rejected.request.rejection == Self.publisher.step)
        #expect(rejected.events == [.changeRequestRejected] && rejected.actor == Self.publisher.step)
    }

    @Test(arguments: [ChangeStatus.open, .approved, .scheduled, .conflicted])
    func itsAuthorOrAnAdminCancels(status: ChangeStatus) throws {
        for actor in [Self.author, Self.admin] {
            let cancelled = try Self.take(.cancel, status, by: actor)
            #expect(cancelled.status == .cancelled && cancelled.request.cancellation == actor.step)
            #expect(cancelled.events == [.changeRequestCancelled] && cancelled.scheduleTime == nil)
        }
        #expect(Self.refusal { () throws(Machine.Refusal) in try Self.take(.cancel, status, by: Self.publisher) } == .notAuthorOrAdmin)
    }

    // MARK: Scheduling and applying

    @Test(arguments: [ChangeStatus.open, .approved, .scheduled])
    func aRequestWithItsApprovalsIsScheduled(status: ChangeStatus) throws {
        let scheduled = try Self.take(.schedule(at: Self.later), status, Self.request(approvedBy: ["other"]), by: Self.publisher)
        #expect(scheduled.status == .scheduled && scheduled.scheduleTime == Self.later)
        #expect(scheduled.request.scheduledBy == Self.publisher.step && scheduled.events == [.changeRequestScheduled])
    }

    @Test func schedulingNeverBypassesApprovals() {
        #expect(Self.refusal { () throws(Machine.Refusal) in
            try Self.take(.schedule(at: Self.later), .open, by: Self.admin, policy: Self.policy(approvals: 2))
        } == .approvalsMissing(have: 0, need: 2))
    }

    @Test func aRequestWithItsApprovalsIsApplied() throws {
        let applied = try Self.take(.apply(bypassApproval: false), .approved, Self.request(approvedBy: ["other"]), by: Self.publisher)
        #expect(applied.status == .applied && applied.events == [.changeRequestApplied])
        #expect(applied.request.appliedBy == Self.publisher.step && !applied.request.bypassedApproval)
        // With no approvals needed, an open request is applied at once.
        #expect(try Self.take(.apply(bypassApproval: false), .open, by: Self.publisher, policy: Self.policy(approvals: 0)).status == .applied)
    }

    @Test func applyingAScheduledRequestReportsTheSchedule() throws {
        let applied = try Self.take(.apply(bypassApproval: false), .scheduled, Self.request(approvedBy: ["other"]), by: Self.publisher)
        #expect(applied.events == [.changeRequestApplied, .scheduleApplied])
    }

    @Test func onlyAnAdminBypassesMissingApprovals() throws {
        #expect(Self.refusal { () throws(Machine.Refusal) in try Self.take(.apply(bypassApproval: false), .open, by: Self.admin) }
            == .approvalsMissing(have: 0, need: 1))
        #expect(Self.refusal { () throws(Machine.Refusal) in try Self.take(.apply(bypassApproval: true), .open, by: Self.publisher) }
            == .bypassNeedsAdmin)
        let bypassed = try Self.take(.apply(bypassApproval: true), .open, by: Self.admin)
        #expect(bypassed.status == .applied && bypassed.request.bypassedApproval)
        #expect(Machine.bypassesApproval(Self.request(), policy: Self.policy(approvals: 1), bypass: true))
        // With the approvals there, asking to bypass bypasses nothing.
        let approved = try Self.take(.apply(bypassApproval: true), .approved, Self.request(approvedBy: ["other"]), by: Self.admin)
        #expect(!approved.request.bypassedApproval)
    }

    @Test func aConflictedRequestIsEditedBeforeItIsScheduledOrApplied() {
        let conflicted = Self.request(approvedBy: ["other"], conflictVersion: 7)
        for step in [Machine.Step.schedule(at: Self.later), .apply(bypassApproval: true)] {
            #expect(Self.refusal { () throws(Machine.Refusal) in try Self.take(step, .conflicted, conflicted, by: Self.admin) }
                == .conflicted(version: 7))
        }
    }

    // MARK: Editing

    @Test(arguments: [ChangeStatus.open, .approved, .conflicted])
    func itsAuthorOrAnAdminEditsItOpenAgainWithoutApprovals(status: ChangeStatus) throws {
        var proposal = Self.request(approvedBy: ["other"], conflictVersion: 7)
        proposal.description = "new"
        proposal.baseVersion = 7
        for actor in [Self.author, Self.admin] {
            let edited = try Self.take(.edit(proposal: proposal), status, Self.request(approvedBy: ["other"]), by: actor)
            #expect(edited.status == .open && edited.events == [.changeRequestEdited] && edited.scheduleTime == nil)
            #expect(edited.request.approvals.isEmpty && edited.request.conflictVersion == nil)
            #expect(edited.request.description == "new" && edited.request.baseVersion == 7)
        }
        #expect(Self.refusal { () throws(Machine.Refusal) in try Self.take(.edit(proposal: proposal), status, by: Self.publisher) }
            == .notAuthorOrAdmin)
    }

    @Test func aScheduledRequestIsCancelledRatherThanEdited() {
        #expect(Self.refusal { () throws(Machine.Refusal) in try Self.take(.edit(proposal: Self.request()), .scheduled, by: Self.author) }
            == .notEditable(.scheduled))
    }

    // MARK: The server's steps

    @Test func theScheduleAppliesAsWhoeverScheduledIt() throws {
        var request = Self.request()
        request.scheduledBy = Self.publisher.step
        let applied = try Machine.take(.applyOnSchedule, status: .scheduled, request: request)
        #expect(applied.status == .applied && applied.events == [.changeRequestApplied, .scheduleApplied])
        #expect(applied.actor == Self.publisher.step && applied.request.appliedBy == Self.publisher.step)
        // One stored before who scheduled it was recorded: its author.
        #expect(try Machine.take(.applyOnSchedule, status: .scheduled, request: Self.request()).actor == Self.author.step)
    }

    @Test(arguments: [ChangeStatus.open, .approved, .conflicted, .applied])
    func theScheduleAppliesOnlyWhatIsScheduled(status: ChangeStatus) {
        #expect(Self.refusal { () throws(Machine.Refusal) in try Machine.take(.applyOnSchedule, status: status, request: Self.request()) }
            == .notScheduled(status))
        #expect(Self.refusal { () throws(Machine.Refusal) in
            try Machine.take(.fail(reason: "r"), status: status, request: Self.request())
        } == .notScheduled(status))
    }

    @Test func aConflictSuspendsTheRequestAndFailsItsSchedule() throws {
        let open = try Machine.take(.conflict(activeVersion: 9), status: .approved, request: Self.request())
        #expect(open.status == .conflicted && open.request.conflictVersion == 9 && open.events == [.changeRequestConflicted])
        #expect(open.actor == nil && open.scheduleTime == nil)
        let scheduled = try Machine.take(.conflict(activeVersion: 9), status: .scheduled, request: Self.request())
        #expect(scheduled.events == [.changeRequestConflicted, .scheduleFailed])
        #expect(Self.refusal { () throws(Machine.Refusal) in
            try Machine.take(.conflict(activeVersion: 9), status: .applied, request: Self.request())
        } == .final(.applied))
    }

    @Test func aScheduleThatCannotBeAppliedIsSuspendedWithItsReason() throws {
        let failed = try Machine.take(.fail(reason: "a canary is running"), status: .scheduled, request: Self.request())
        #expect(failed.status == .conflicted && failed.request.failure == "a canary is running" && failed.scheduleTime == nil)
        #expect(failed.events == [.changeRequestConflicted, .scheduleFailed])
    }

    // MARK: Answers

    static let refusals: [Machine.Refusal] = [
        .final(.applied), .notApprovable(.scheduled), .notRejectable(.conflicted), .notEditable(.scheduled), .notScheduled(.open),
        .ownApproval, .approvedAlready(name: "n"), .notAuthorOrAdmin, .conflicted(version: 2), .approvalsMissing(have: 0, need: 1),
        .bypassNeedsAdmin, .scheduleNeedsNoApprovals, .scheduleNeedsPublisher,
    ]

    /// A step that does not fit the request's state is a 409; one the caller may not take, a 403.
    @Test(arguments: refusals)
    func everyRefusalIsAnsweredAsAConflictOrAPermission(refusal: Machine.Refusal) {
        let error = refusal.apiError(id: 5, project: "demo", doing: "cancel")
        switch refusal {
        case .final, .notApprovable, .notRejectable, .notEditable, .notScheduled, .approvedAlready, .conflicted:
            #expect(error.status == 409 && error.canonicalStatus == "FAILED_PRECONDITION", "\(error.message)")
        case .ownApproval, .notAuthorOrAdmin, .approvalsMissing, .bypassNeedsAdmin, .scheduleNeedsNoApprovals, .scheduleNeedsPublisher:
            #expect(error.status == 403, "\(error.message)")
        }
        #expect(!error.message.isEmpty)
    }
}
