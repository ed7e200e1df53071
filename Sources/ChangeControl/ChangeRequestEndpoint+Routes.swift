import HTTP1
package import ServerCore

extension ChangeRequestEndpoint {
    /// A template's approval policy (viewers read it, admins set it) and its change requests:
    /// viewers read them, editors propose and edit (the author's own, or an admin's: checked
    /// here), and each step needs its role. A change request is based on the active version:
    /// this worker's must be current.
    package var routes: [RouteDeclaration] {
        let policy = "/v1/projects/{project}/namespaces/{namespace}/changePolicy"
        let requests = "/v1/projects/{project}/namespaces/{namespace}/changeRequests", request = requests + "/{id}"
        let id = AuditRule.Name.parameters(["id"])
        let steps: [(step: ChangeStep, role: Role)] = [
            (.approve, .publisher), (.reject, .publisher), (.cancel, .editor), (.schedule, .publisher), (.apply, .publisher),
        ]
        return [
            RouteDeclaration(.get, path: policy, label: "changePolicy", access: .role(.viewer), reads: .controlPlane,
                             audit: .read("changePolicy.read")) { exchange, arguments in self.policy(exchange, key: arguments.key) },
            RouteDeclaration(.put, path: policy, label: "changePolicy", access: .role(.admin), reads: .controlPlane,
                             audit: .change("changePolicy.set")) { try setPolicy($0, key: $1.key) },
            RouteDeclaration(.get, path: requests, label: "changeRequests", access: .role(.viewer), reads: .controlPlaneAndTemplate,
                             audit: .read("changeRequest.list")) { try list($0, key: $1.key) },
            RouteDeclaration(.post, path: requests, label: "changeRequests", access: .role(.editor), reads: .controlPlaneAndTemplate,
                             audit: .change("changeRequest.create", target: .answerMember("id"))) {
                try create($0, project: $1.project, key: $1.key, identity: $1.identity)
            },
            RouteDeclaration(.get, path: request, label: "changeRequest", access: .role(.viewer), reads: .controlPlaneAndTemplate,
                             audit: .read("changeRequest.read", target: id)) {
                get($0, key: $1.key, id: try Self.number($0.parameter("id")))
            },
            RouteDeclaration(.patch, path: request, label: "changeRequest", access: .role(.editor), reads: .controlPlaneAndTemplate,
                             audit: .change("changeRequest.edit", target: id)) {
                try edit($0, project: $1.project, key: $1.key, id: try Self.number($0.parameter("id")), identity: $1.identity)
            },
        ] + steps.map { step, role in
            let action = "changeRequest." + step.rawValue
            return RouteDeclaration(.post, path: "\(request):\(step.rawValue)", label: "changeRequest:\(step.rawValue)",
                                    access: .role(role), reads: .controlPlaneAndTemplate,
                                    audit: AuditRule(kind: step == .apply ? .version : .change, action: action, target: id)) {
                try self.step($0, project: $1.project, key: $1.key, id: try Self.number($0.parameter("id")), step: step,
                              identity: $1.identity)
            }
        } + [
            .fallback(path: request + ":{step}", label: "changeRequest:unknown", access: .role(.viewer), reads: .controlPlaneAndTemplate,
                      audit: .read("changeRequest.read", target: id)) {
                "Unknown step 'changeRequests/\($0.parameter("id")):\($0.parameter("step"))'."
            },
        ] + [promotion].withFirebasePaths()
    }

    /// A change request's number, from its path; 404 for anything else.
    private static func number(_ id: String) throws -> Int64 {
        guard let number = Int64(id), number > 0 else { throw APIError.notFound("No change request '\(id)'.") }
        return number
    }

    /// Promotion into the template the path names (`…/environments/{e}/remoteConfig:promoteFrom`
    /// and its Firebase forms): it publishes, so a publisher's; an editor's where the template's
    /// policy makes it a proposal (approvals asked) or lets editors publish.
    private var promotion: RouteDeclaration {
        let proposing = RouteRule(role: { [policies] _, arguments, asked in
            let policy = policies.policy(arguments.key)
            return policy.requiresApproval || policy.editorsMayPublish ? .editor : asked
        })
        return RouteDeclaration(
            .post, path: "/v1/projects/{project}/namespaces/{namespace}/remoteConfig:promoteFrom", label: "remoteConfig:promoteFrom",
            access: .role(.publisher), reads: .controlPlaneAndTemplate,
            audit: AuditRule(kind: .version, action: "environment.promote", target: .answerMember("promotedFrom")), rules: [proposing]
        ) { try promote($0, project: $1.project, key: $1.key, identity: $1.identity) }
    }
}
