import ConfigStore
import ServerCore

extension ChangeRequestMachine.Refusal {
    /// The answer to a refused step.
    /// - Parameters:
    ///   - id: the change request's id.
    ///   - project: its project's id.
    ///   - doing: the step, as a verb ("edit", "cancel").
    func apiError(id: Int64, project: String, doing: String) -> APIError {
        switch self {
        case .final(let status):
            Self.precondition("Change request \(id) is \(status.rawValue) already.")
        case .notApprovable(let status):
            Self.precondition("Only an open or approved change request can be approved; this one is \(status.rawValue).")
        case .notRejectable(let status):
            Self.precondition("Change request \(id) is \(status.rawValue): only an open or approved one can be rejected.")
        case .notEditable(let status):
            Self.precondition("Change request \(id) is \(status.rawValue): only an open, approved or conflicted one can be edited.")
        case .notScheduled(let status):
            Self.precondition("Change request \(id) is \(status.rawValue): it is no longer scheduled.")
        case .approvedAlready(let name):
            Self.precondition("\(name) approved this change request already: approvals come from distinct people.")
        case .conflicted(let version):
            Self.precondition("Change request \(id) conflicts with version \(version): edit it onto the active version first.")
        case .ownApproval:
            APIError(403, "Approving your own change request is off for this template (changePolicy.allowSelfApproval).")
        case .notAuthorOrAdmin:
            APIError(403, "Only the author of a change request or an admin of project '\(project)' may \(doing) it.")
        case .approvalsMissing(let have, let need):
            APIError(403, "[APPROVAL_REQUIRED]: change request \(id) has \(have) of the \(need) approvals it needs. An admin may "
                + "bypass them in an emergency ({\"bypassApproval\": \"true\"}, audited).", canonicalStatus: "PERMISSION_DENIED")
        case .bypassNeedsAdmin:
            APIError(403, "Only an admin of project '\(project)' may bypass the approvals.")
        case .scheduleNeedsNoApprovals:
            APIError(403, "[APPROVAL_REQUIRED]: this template needs approvals: propose, then schedule once approved.",
                     canonicalStatus: "PERMISSION_DENIED")
        case .scheduleNeedsPublisher:
            APIError(403, "Scheduling a publish needs the role 'publisher' on project '\(project)'.")
        }
    }

    private static func precondition(_ message: String) -> APIError {
        APIError(409, message, canonicalStatus: "FAILED_PRECONDITION")
    }
}
