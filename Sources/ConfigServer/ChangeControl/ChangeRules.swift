import ConfigStore

/// Who may approve and apply a change request, beyond the role the router checked
/// (docs/change-control.md, "Who may do what").
enum ChangeRules {
    /// A publisher approves an open or approved request once; its author only where the policy
    /// allows self-approval.
    static func requireApprovable(_ request: ChangeRequest, status: ChangeStatus, by identity: AccessControl.AdminIdentity,
                                  policy: ChangePolicy) throws {
        guard status == .open || status == .approved else {
            throw APIError(409, "Only an open or approved change request can be approved; this one is \(status.rawValue).",
                           canonicalStatus: "FAILED_PRECONDITION")
        }
        guard request.author.principal != identity.id || policy.allowSelfApproval else {
            throw APIError(403, "Approving your own change request is off for this template (changePolicy.allowSelfApproval).")
        }
        guard !request.isApproved(by: identity.id) else {
            throw APIError(409, "\(identity.name) approved this change request already: approvals come from distinct people.",
                           canonicalStatus: "FAILED_PRECONDITION")
        }
    }

    /// A request is applied (or scheduled) once it has the approvals the policy needs, or by an
    /// admin who bypasses them; a conflicted one is edited onto the active version first.
    static func requireApplicable(_ stored: StoredChangeRequest, _ request: ChangeRequest, status: ChangeStatus, policy: ChangePolicy,
                                  bypass: Bool, by identity: AccessControl.AdminIdentity) throws {
        guard status != .conflicted else {
            throw APIError(409, "Change request \(stored.id) conflicts with version \(request.conflictVersion ?? 0): edit it onto "
                + "the active version first.", canonicalStatus: "FAILED_PRECONDITION")
        }
        guard request.approvals.count < policy.requiredApprovals else { return }
        guard bypass else {
            throw APIError(403, "[APPROVAL_REQUIRED]: change request \(stored.id) has \(request.approvals.count) of the "
                + "\(policy.requiredApprovals) approvals it needs. An admin may bypass them in an emergency "
                + "({\"bypassApproval\": \"true\"}, audited).", canonicalStatus: "PERMISSION_DENIED")
        }
        guard identity.role(on: stored.project).map({ $0 >= .admin }) == true else {
            throw APIError(403, "Only an admin of project '\(stored.project)' may bypass the approvals.")
        }
    }
}
