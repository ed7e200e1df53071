import ConfigCore
import ConfigStore
import HTTP1
package import ServerCore

/// Change control's rule on the routes that change a template directly (a publish, a rollback,
/// a canary's steps), attached to their declarations: where the template's policy requires
/// approvals, such a change is refused (Firebase's tools never make a change request by
/// surprise), unless an admin bypasses in an emergency with `?bypassApproval=true`, which is
/// audited. Where the policy lets editors publish and requires no approval, they may.
package struct DirectChanges: DirectChangeRules {
    let policies: ChangePolicies
    let audit: AuditTrail

    package init(policies: ChangePolicies, audit: AuditTrail) {
        self.policies = policies
        self.audit = audit
    }

    /// For the routes that change a template directly.
    package var rule: RouteRule {
        RouteRule(check: { exchange, arguments in try requireDirectChange(exchange, arguments) })
    }

    /// For the publish: the rule, and editors publish where the policy lets them.
    package var publishing: RouteRule {
        RouteRule(role: { _, arguments, asked in
            let policy = policies.policy(arguments.key)
            return policy.editorsMayPublish && !policy.requiresApproval ? .editor : asked
        }, check: rule.check)
    }

    private func requireDirectChange(_ exchange: Exchange, _ arguments: RouteArguments) throws {
        let key = arguments.key
        let policy = policies.policy(key)
        guard policy.requiresApproval else { return }
        guard exchange.uri.parameter("bypassApproval") == "true" else {
            throw APIError(403, "[APPROVAL_REQUIRED]: the \(key.namespace.rawValue) template of project '\(key.project)' changes "
                + "only through change requests with \(policy.requiredApprovals) approval(s): propose one (POST …/"
                + "\(key.namespace.path)/changeRequests, rcctl changes propose, or the console). An admin may bypass in an "
                + "emergency with ?bypassApproval=true (audited).", canonicalStatus: "PERMISSION_DENIED")
        }
        guard arguments.identity.role(on: key.project, in: key.namespace.environment).map({ $0 >= .admin }) == true else {
            throw APIError(403, "Only an admin of project '\(key.project)' may bypass the approvals.")
        }
        audit.bypassed(exchange, actor: arguments.identity, key: key)
    }
}
