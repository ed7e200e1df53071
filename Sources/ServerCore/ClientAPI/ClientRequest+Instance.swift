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
    /// - Parameters: the text of the request's two members (its evaluation context's).
    /// - Throws: 400 on `firebase` without a non-empty `appInstanceId`.
    static func fetchingInstance(namespace: TemplateNamespace, appInstanceId: String?, randomizationId: String?)
        throws(APIError) -> String? {
        guard namespace.kind == .server else {
            guard let appInstanceId, !appInstanceId.isEmpty else { throw APIError.badRequest("appInstanceId is required.") }
            return appInstanceId
        }
        guard let id = randomizationId ?? appInstanceId, !id.isEmpty else { return nil }
        return id
    }

    /// A fetch's body read straight into the members of its evaluation context: the same
    /// answer, and the same errors, as ``parseBody(_:limit:)`` then reading them, without a
    /// string made of any name or of a value the context does not keep (every fetch reads one).
    static func parseContext(_ body: [UInt8], limit: Int) throws(APIError) -> ContextMembers {
        do throws(Invalid) {
            var members = ContextMembers()
            guard let bytes = try decoded(body, maxInflatedBytes: limit) else { return members }
            let isObject = try readingJSON { () throws(LenientJSON.SyntaxError) in
                try LenientJSON.visitMembers(bytes) { name, reader throws(LenientJSON.SyntaxError) in
                    let value = try reader.value()
                    if let slot = ContextMembers.slot(named: name) { members.keep(value, at: slot) }
                }
            }
            guard isObject else { throw notAnObject }
            return members
        } catch {
            throw APIError.badRequest(error.message)
        }
    }
}
