/// The server's database: one store per capability, and how the workers and nodes learn what
/// another committed. `SQLiteConfigDatabase` (one file, the embedded default) and
/// `PostgresConfigDatabase` (several nodes on one database) implement it; each capability is
/// written once, in SQL both engines read (`DatabaseEngine`).
///
/// The contract every store of every implementation keeps, and that the contract tests check:
/// - **Blocking.** Every method is synchronous and may wait on disk or network: never call it
///   on an event-loop thread. Implementations are safe to call from several threads at once.
/// - **Durable before return.** A write returns only after its commit would survive a crash
///   of the process (and, for a database server, is visible to every other connection).
/// - **Announced or not, by capability.** A write of what every worker keeps in memory (templates,
///   projects and API keys, access records but a session's own writes, change policies) moves the
///   change token and, where nodes share the database, tells each node as a `StoreChange` before
///   it returns. Anything else (audit, sign-in attempts, change requests, webhooks, usage counts, a
///   session's start and keep-alive) is read from the store when needed and announced to nobody.
/// - **One error type.** Failures are `StoreError`s. An engine that is busy, unreachable or
///   failing maps into `StoreError.unavailable`, which callers treat as "try again later";
///   a write that throws it may or may not have committed (read it back to know).
public protocol ConfigDatabase: AnyObject, Sendable {
    /// Templates, their versions and canaries.
    var templates: any TemplateStore { get }
    /// Projects and their client API keys.
    var projects: any ProjectStore { get }
    /// Principals, memberships, tokens, console sessions and change policies.
    var access: any AccessStore { get }
    /// The audit log.
    var audit: any AuditLog { get }
    /// Change requests.
    var changeRequests: any ChangeRequestStore { get }
    /// Sign-ins under way.
    var signIns: any SignInStore { get }
    /// The webhook endpoints and the outbox of their events.
    var webhooks: any WebhookStore { get }
    /// What clients read: evaluation counts, and the stale rule's settings.
    var usage: any UsageStore { get }

    /// A value that changes whenever an announced write was committed, by any process or node.
    /// Compare it with the last one read to know whether to read `templates.heads()` and the
    /// control plane again; it means nothing else, and an unannounced write leaves it as it is.
    func changeToken() throws(StoreError) -> StoreChangeToken

    /// A connection told of every announced commit, for databases that several nodes share;
    /// nil when the change token and the workers' own announcements suffice (one machine).
    /// - Parameter name: names the connection on the server (e.g. the node), for operators.
    func makeChangeListener(name: String) -> (any StoreChangeListener)?

    /// Releases the connections. Later calls of any store throw `StoreError.unavailable`.
    /// Idempotent.
    func close()
}

/// An opaque value of `ConfigDatabase.changeToken()`: only equality means something.
public struct StoreChangeToken: Hashable, Sendable {
    let value: Int64

    /// Wraps an implementation's counter.
    public init(_ value: Int64) { self.value = value }
}
