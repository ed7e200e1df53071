public import Foundation

/// The management API (templates, versions, rollback, diff, evaluate) for one project and one
/// of its environments, authenticated with `Authorization: Bearer <token>`.
public struct AdminClient: Sendable {
    /// A successful answer: the JSON body as sent, and the template ETag where there is one.
    public struct Response: Sendable {
        public var body: Data
        public var etag: String?

        /// Decodes the body as `type`.
        /// - Throws: ``ConfigClientError/invalidResponse(_:)`` naming the field that does not fit.
        public func decode<T: Decodable>(_ type: T.Type) throws(ConfigClientError) -> T {
            do {
                return try JSONDecoder().decode(type, from: body)
            } catch {
                throw .invalidResponse(DecodingErrorDescription.describe(error))
            }
        }
    }

    public let baseURL: String
    public let project: String
    /// The environment whose templates the template calls work on; `nil` for production, on
    /// the Firebase paths.
    public let environment: String?
    private let token: String?
    private let transport: any HTTPTransport
    private let timeout: TimeInterval
    /// Sent as `X-RCS-Origin`: where the server's audit log says a change came from.
    private let origin: String?
    var paths: APIPaths { APIPaths(baseURL: baseURL, project: project, environment: environment) }

    /// - Parameters:
    ///   - baseURL: scheme, host and port of the server.
    ///   - project: project id or number.
    ///   - environment: the environment whose templates to work on (docs/environments.md);
    ///     `nil` or `production` for production, on the Firebase paths.
    ///   - token: the admin bearer token, or `nil` to send none.
    ///   - transport: how requests are sent; libcurl by default.
    ///   - timeout: seconds allowed per request.
    ///   - origin: what the server's audit log records as the origin of changes (`CLI` for rcctl;
    ///     `API` when nil).
    public init(baseURL: String, project: String, environment: String? = nil, token: String?,
                transport: any HTTPTransport = CurlTransport(), timeout: TimeInterval = 60, origin: String? = nil) {
        self.baseURL = baseURL
        self.project = project
        self.environment = environment == APIPaths.production ? nil : environment
        self.token = token
        self.transport = transport
        self.timeout = timeout
        self.origin = origin
    }

    /// The current template, or version `version`.
    public func template(version: Int64? = nil) async throws(ConfigClientError) -> Response {
        let query = version.map { [("versionNumber", String($0))] } ?? []
        return try await send(.get, paths.remoteConfig(query: query))
    }

    /// Publishes `template` (a `RemoteConfig` JSON object).
    /// - Parameters:
    ///   - template: the body to PUT.
    ///   - etag: `If-Match`: the ETag the template was based on, or `*` to force.
    ///   - validateOnly: only check the template; nothing is stored.
    ///   - canaryPercent: publish as a canary served to this share of the instances (above 0,
    ///     at most 100; this server's extension), or `nil` for everyone.
    /// - Returns: the published template and its new ETag.
    public func publish(_ template: Data, ifMatch etag: String, validateOnly: Bool = false,
                        canaryPercent: Double? = nil) async throws(ConfigClientError) -> Response {
        var query = validateOnly ? [("validateOnly", "true")] : []
        if let canaryPercent { query.append(("canaryPercent", String(canaryPercent))) }
        return try await send(.put, paths.remoteConfig(query: query), body: template, headers: ["If-Match": etag])
    }

    /// The running canary: its version, share and times, with the canary version's ETag
    /// (this server's extension).
    public func canary() async throws(ConfigClientError) -> Response {
        try await send(.get, paths.remoteConfig(":canary"))
    }

    /// Grows the running canary's share to `percent`.
    /// - Parameter etag: `If-Match`: the canary version's ETag, or `*`.
    public func setCanaryShare(_ percent: Double, ifMatch etag: String) async throws(ConfigClientError) -> Response {
        try await send(.post, paths.remoteConfig(":canary"), body: ClientRequests.encode(["percent": String(percent)]),
                       headers: ["If-Match": etag])
    }

    /// Ends the running canary: `promote` makes it the version for everyone, otherwise the
    /// canary's instances go back to the stable version.
    /// - Parameter etag: `If-Match`: the canary version's ETag, or `*`.
    public func endCanary(promote: Bool, ifMatch etag: String) async throws(ConfigClientError) -> Response {
        try await send(.post, paths.remoteConfig(promote ? ":promote" : ":abort"), headers: ["If-Match": etag])
    }

    /// One page of the version history, newest first.
    /// - Parameters:
    ///   - pageSize: versions per page, or the server's default.
    ///   - pageToken: `nextPageToken` of the previous page.
    public func listVersions(pageSize: Int? = nil, pageToken: String? = nil) async throws(ConfigClientError) -> Response {
        var query: [(String, String)] = []
        if let pageSize { query.append(("pageSize", String(pageSize))) }
        if let pageToken { query.append(("pageToken", pageToken)) }
        return try await send(.get, paths.remoteConfig(":listVersions", query: query))
    }

    /// Publishes a copy of version `version` as a new version.
    public func rollback(to version: Int64) async throws(ConfigClientError) -> Response {
        let body = ClientRequests.encode(["versionNumber": String(version)])
        return try await send(.post, paths.remoteConfig(":rollback"), body: body)
    }

    /// The differences between versions `from` and `to` (this server's extension).
    public func diff(from: Int64, to: Int64) async throws(ConfigClientError) -> Response {
        try await send(.get, paths.remoteConfig(":diff", query: [("from", String(from)), ("to", String(to))]))
    }

    /// Evaluates the current template for a client context (a fetch request body); the answer
    /// has the entries and, per key, the deciding condition (this server's extension).
    public func evaluate(context: Data) async throws(ConfigClientError) -> Response {
        try await send(.post, paths.remoteConfig(":evaluate"), body: context)
    }

    // MARK: Access (docs/access.md)

    /// Every person and service account.
    public func principals() async throws(ConfigClientError) -> Response {
        try await send(.get, paths.server("principals"))
    }

    /// Adds a principal: `fields` are `kind`, `displayName`, `email`, `id`, `owner`.
    public func createPrincipal(_ fields: [String: String]) async throws(ConfigClientError) -> Response {
        try await send(.post, paths.server("principals"), body: ClientRequests.encode(fields))
    }

    /// Each principal's role on the project.
    public func members() async throws(ConfigClientError) -> Response {
        try await send(.get, paths.members())
    }

    /// Gives `principal` `role` on the project, or takes its role away (`role` nil).
    public func setMember(_ principal: String, role: String?) async throws(ConfigClientError) -> Response {
        guard let role else { return try await send(.delete, paths.members(principal)) }
        return try await send(.put, paths.members(principal), body: ClientRequests.encode(["role": role]))
    }

    /// The project's client API keys made through the API, by id and name.
    public func apiKeys() async throws(ConfigClientError) -> Response {
        try await send(.get, paths.apiKeys())
    }

    /// A new client API key serving `environment` (production when `nil`); the key is in this
    /// answer only.
    public func createAPIKey(name: String, environment: String? = nil) async throws(ConfigClientError) -> Response {
        var fields = ["name": name]
        if let environment { fields["environment"] = environment }
        return try await send(.post, paths.apiKeys(), body: ClientRequests.encode(fields))
    }

    /// Revokes the client API key with this id.
    public func revokeAPIKey(_ id: String) async throws(ConfigClientError) -> Response {
        try await send(.delete, paths.apiKeys(id))
    }

    /// A page of the audit log: `query` holds its filters and format (`actor`, `action`,
    /// `project`, `startTime`, `endTime`, `pageSize`, `pageToken`, `format`).
    public func auditLog(query: [(String, String)]) async throws(ConfigClientError) -> Response {
        try await send(.get, paths.auditLog(query: query))
    }

    /// Every token, without secrets.
    public func tokens() async throws(ConfigClientError) -> Response {
        try await send(.get, paths.server("tokens"))
    }

    /// A token for `principal`; its secret is in this answer only.
    /// - Parameter roles: project → role, to hold less than the principal does.
    public func createToken(
        principal: String, name: String, expireTime: String? = nil, roles: [String: String]? = nil
    ) async throws(ConfigClientError) -> Response {
        struct Body: Encodable {
            let principal: String
            let name: String
            let expireTime: String?
            let roles: [String: String]?
        }
        let body = ClientRequests.encode(Body(principal: principal, name: name, expireTime: expireTime, roles: roles))
        return try await send(.post, paths.server("tokens"), body: body)
    }

    /// Live console sessions (an owner's token: everyone's).
    public func sessions() async throws(ConfigClientError) -> Response {
        try await send(.get, paths.server("sessions"))
    }

    /// Ends a console session on every worker and node.
    public func endSession(_ id: String) async throws(ConfigClientError) -> Response {
        try await send(.delete, paths.server("sessions", id))
    }

    /// Revokes the token with this id.
    public func revokeToken(_ id: String) async throws(ConfigClientError) -> Response {
        try await send(.delete, paths.server("tokens", id))
    }

    // MARK: Webhooks (docs/webhooks.md)

    /// The project's webhook endpoints, without secrets.
    public func webhooks() async throws(ConfigClientError) -> Response {
        try await send(.get, paths.webhooks())
    }

    /// A new endpoint for `events`; its secret is in this answer only.
    public func createWebhook(url: String, events: [String], description: String?) async throws(ConfigClientError) -> Response {
        struct Body: Encodable {
            let url: String
            let events: [String]
            let description: String?
        }
        return try await send(.post, paths.webhooks(), body: ClientRequests.encode(Body(url: url, events: events, description: description)))
    }

    /// Deletes the endpoint with its delivery log.
    public func deleteWebhook(_ id: String) async throws(ConfigClientError) -> Response {
        try await send(.delete, paths.webhooks(id))
    }

    /// A new secret for the endpoint (in this answer only); the old one keeps signing for
    /// `overlapSeconds` (nil: the server's default).
    public func rotateWebhookSecret(_ id: String, overlapSeconds: Double?) async throws(ConfigClientError) -> Response {
        struct Body: Encodable { let overlapSeconds: Double? }
        return try await send(.post, paths.webhooks(id, ":rotateSecret"), body: ClientRequests.encode(Body(overlapSeconds: overlapSeconds)))
    }

    /// Sends a `test` event to the endpoint.
    public func testWebhook(_ id: String) async throws(ConfigClientError) -> Response {
        try await send(.post, paths.webhooks(id, ":test"))
    }

    /// The endpoint's delivery log, newest first.
    public func webhookDeliveries(_ id: String, pageSize: Int) async throws(ConfigClientError) -> Response {
        try await send(.get, paths.webhooks(id, "/deliveries?pageSize=\(pageSize)"))
    }

    /// Sends a delivery again.
    public func redeliverWebhook(_ id: String, delivery: String) async throws(ConfigClientError) -> Response {
        try await send(.post, paths.webhooks(id, "/deliveries/\(APIPaths.escape(delivery)):redeliver"))
    }

    /// The real-time stream request a client app would send, for watching invalidations.
    /// - Parameters:
    ///   - apiKey: the client API key.
    ///   - appId: the GMP app id.
    ///   - appInstanceId: who watches (the server counts the stream under it).
    ///   - lastKnownVersion: the version the watcher already knows (0: announce the current one).
    public func invalidationStreamRequest(apiKey: String, appId: String, appInstanceId: String, lastKnownVersion: Int64) -> HTTPRequest {
        let configuration = ClientConfiguration(baseURL: baseURL, project: project, apiKey: apiKey, appId: appId)
        return ClientRequests(configuration: configuration, appInstanceId: appInstanceId)
            .streamInvalidations(lastKnownVersion: lastKnownVersion, etag: nil)
    }

    func send(_ method: HTTPRequest.Method, _ url: String, body: Data? = nil, headers extra: [String: String] = [:]) async throws(ConfigClientError) -> Response {
        var headers = extra
        headers["Accept"] = "application/json"
        if body != nil { headers["Content-Type"] = "application/json; charset=utf-8" }
        if let token { headers["Authorization"] = "Bearer \(token)" }
        if let origin { headers["X-RCS-Origin"] = origin }
        let response: HTTPResponse
        do {
            response = try await transport.send(HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: timeout))
        } catch {
            throw .transport(error)
        }
        guard (200..<300).contains(response.status) else { throw .server(ServerError(response: response)) }
        return Response(body: response.body, etag: response.header("etag"))
    }
}
