import Foundation

/// What clients read (docs/insights.md): a template's usage report, the parameters marked
/// permanent, and the project's stale days. `namespace` is `firebase` or `firebase-server`.
extension AdminClient {
    /// The template's usage report: per parameter its evaluations in each window, by source,
    /// app version and platform, its last evaluation, and which are unevaluated or stale.
    /// - Parameter topValues: how many app versions and platforms to name per window (the
    ///   server's default when nil).
    public func usage(namespace: String, topValues: Int? = nil) async throws(ConfigClientError) -> Response {
        try await send(.get, paths.namespaced(namespace, "remoteConfig", step: "usage", query: topValues.map { [("topValues", "\($0)")] } ?? []))
    }

    /// Marks a parameter of the template permanent (never stale: a kill switch), or no longer.
    public func setPermanent(namespace: String, parameter: String, permanent: Bool) async throws(ConfigClientError) -> Response {
        try await send(.post, paths.namespaced(namespace, "parameters", parameter, step: permanent ? "markPermanent" : "unmarkPermanent"))
    }

    /// The project's usage settings: its stale days and the parameters marked permanent.
    public func usageSettings() async throws(ConfigClientError) -> Response {
        try await send(.get, paths.usageSettings)
    }

    /// Sets the project's stale days.
    public func setStaleDays(_ days: Int) async throws(ConfigClientError) -> Response {
        struct Body: Encodable { let staleDays: Int }
        return try await send(.patch, paths.usageSettings, body: ClientRequests.encode(Body(staleDays: days)))
    }
}
