public import Foundation

/// A project's environments (docs/environments.md), and comparing and promoting templates
/// between them. The template calls here work on the client's `environment`, like every other.
extension AdminClient {
    /// What a promotion takes from the environment it comes from.
    public struct Promotion: Sendable, Encodable {
        /// The environment promoted from.
        public var from: String
        /// Its version to promote; its active one when `nil`.
        public var version: Int64?
        /// Only these parameters (with the conditions their values use); `nil` with
        /// `conditions` also `nil` promotes the whole template.
        public var parameters: [String]?
        /// Only these conditions.
        public var conditions: [String]?
        /// The new version's description (else "Promoted from … version …").
        public var description: String?

        public init(from: String, version: Int64? = nil, parameters: [String]? = nil, conditions: [String]? = nil,
                    description: String? = nil) {
            self.from = from
            self.version = version
            self.parameters = parameters
            self.conditions = conditions
            self.description = description
        }
    }

    /// The project's environments, in the order a change moves through them, production last.
    public func environments() async throws(ConfigClientError) -> Response {
        try await send(.get, paths.environments())
    }

    /// Adds environment `id` before production; `displayName` defaults to the id capitalized.
    public func createEnvironment(_ id: String, displayName: String? = nil) async throws(ConfigClientError) -> Response {
        var fields = ["id": id]
        if let displayName { fields["displayName"] = displayName }
        return try await send(.post, paths.environments(), body: ClientRequests.encode(fields))
    }

    /// Renames environment `id`, or sets its soak rule (seconds a version must have been active
    /// in the environment it is promoted from).
    public func updateEnvironment(_ id: String, displayName: String? = nil, soakSeconds: Int64? = nil) async throws(ConfigClientError)
        -> Response {
        struct Body: Encodable { var displayName: String?, soakSeconds: Int64? }
        return try await send(.patch, paths.environments(id), body: ClientRequests.encode(Body(displayName: displayName, soakSeconds: soakSeconds)))
    }

    /// Deletes environment `id`, which must hold no published template and no API key.
    public func deleteEnvironment(_ id: String) async throws(ConfigClientError) -> Response {
        try await send(.delete, paths.environments(id))
    }

    /// What this environment's active `namespace` template has against environment `other`'s:
    /// `{"environment", "with", "from", "to", "diff"}`, the diff from `other`'s to this one's.
    public func compare(with other: String, namespace: String = "firebase") async throws(ConfigClientError) -> Response {
        try await send(.get, paths.namespaced(namespace, "remoteConfig", step: "compare", query: [("with", other)]))
    }

    /// A new version of this environment's `namespace` template from another environment's, or
    /// a change request where this template's policy asks approvals.
    /// - Parameters:
    ///   - promotion: what to take from where.
    ///   - namespace: `firebase` or `firebase-server`.
    ///   - etag: `If-Match`: this template's version the promotion is based on (its active one
    ///     when `nil`), so that a promotion repeated after it was made is refused.
    public func promote(_ promotion: Promotion, namespace: String = "firebase", ifMatch etag: String? = nil)
        async throws(ConfigClientError) -> Response {
        try await send(.post, paths.namespaced(namespace, "remoteConfig", step: "promoteFrom"), body: ClientRequests.encode(promotion),
                       headers: etag.map { ["If-Match": $0] } ?? [:])
    }
}
