import ConfigCore

extension ClientRequest {
    /// The instance a fetch on `namespace` comes from: the per-instance fetch throttle counts
    /// the fetch against it.
    ///
    /// On `firebase` it is the app instance id, required as Firebase requires it. On
    /// `firebase-server` it is the id that percent conditions hash there: `randomizationId`
    /// when sent, else `appInstanceId` (`EvaluationContext.serverRandomizationId`). A backend
    /// evaluating for an anonymous visitor sends neither (or an empty one): the Admin SDKs
    /// evaluate such a context with every percent condition false, and so does the server.
    /// Such a fetch has no instance and is not throttled, since one bucket shared by every
    /// anonymous fetch would throttle all of a backend's visitors as one client.
    ///
    /// - Throws: 400 on `firebase` without a non-empty `appInstanceId`.
    func fetchingInstance(namespace: TemplateNamespace) throws(APIError) -> String? {
        guard namespace.kind == .server else {
            guard let instance = string("appInstanceId"), !instance.isEmpty else {
                throw APIError.badRequest("appInstanceId is required.")
            }
            return instance
        }
        guard let id = string("randomizationId") ?? string("appInstanceId"), !id.isEmpty else { return nil }
        return id
    }
}
