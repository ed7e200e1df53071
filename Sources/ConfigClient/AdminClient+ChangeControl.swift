public import Foundation

/// Change control (docs/change-control.md): a template's approval policy, its change requests,
/// and publishes scheduled for a time. `namespace` is `firebase` or `firebase-server`.
extension AdminClient {
    /// The template's approval policy.
    public func changePolicy(namespace: String) async throws(ConfigClientError) -> Response {
        try await send(.get, paths.namespaced(namespace, "changePolicy"))
    }

    /// Sets the template's approval policy (an admin's).
    public func setChangePolicy(namespace: String, requiredApprovals: Int, allowSelfApproval: Bool, editorsMayPublish: Bool)
        async throws(ConfigClientError) -> Response {
        struct Body: Encodable {
            let requiredApprovals: Int
            let allowSelfApproval: Bool
            let editorsMayPublish: Bool
        }
        let body = ClientRequests.encode(Body(requiredApprovals: requiredApprovals, allowSelfApproval: allowSelfApproval,
                                              editorsMayPublish: editorsMayPublish))
        return try await send(.put, paths.namespaced(namespace, "changePolicy"), body: body)
    }

    /// The template's change requests, newest first.
    public func changeRequests(namespace: String, status: String? = nil) async throws(ConfigClientError) -> Response {
        try await send(.get, paths.namespaced(namespace, "changeRequests", query: status.map { [("status", $0)] } ?? []))
    }

    /// One change request, with its diffs.
    public func changeRequest(namespace: String, id: String) async throws(ConfigClientError) -> Response {
        try await send(.get, paths.namespaced(namespace, "changeRequests", id))
    }

    /// Proposes a change (`proposal` is `{"template": …}` or `{"rollbackTo": N}`, with
    /// `description` and, for a publish scheduled for later, `scheduleTime`), based on `ifMatch`.
    public func proposeChange(namespace: String, proposal: Data, ifMatch: String? = nil) async throws(ConfigClientError) -> Response {
        try await send(.post, paths.namespaced(namespace, "changeRequests"), body: proposal,
                       headers: ifMatch.map { ["If-Match": $0] } ?? [:])
    }

    /// Replaces a change request's proposal (its approvals are cleared).
    public func editChange(namespace: String, id: String, proposal: Data) async throws(ConfigClientError) -> Response {
        try await send(.patch, paths.namespaced(namespace, "changeRequests", id), body: proposal)
    }

    /// Takes a step: `approve`, `reject`, `cancel`, `schedule`, `apply`; `fields` are `comment`,
    /// `scheduleTime`, `bypassApproval`.
    public func stepChange(namespace: String, id: String, step: String, fields: [String: String] = [:])
        async throws(ConfigClientError) -> Response {
        try await send(.post, paths.namespaced(namespace, "changeRequests", id, step: step), body: ClientRequests.encode(fields))
    }
}
