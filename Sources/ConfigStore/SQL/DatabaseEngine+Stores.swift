/// What every engine is as a `ConfigDatabase`: each capability written once in SQL over it, and
/// the change token both engines keep the same way.
extension DatabaseEngine {
    public var templates: any TemplateStore { TemplateVersioning(engine: self) }
    public var projects: any ProjectStore { SQLProjectStore(engine: self) }
    public var access: any AccessStore { SQLAccessStore(engine: self) }
    public var audit: any AuditLog { SQLAuditLog(engine: self) }
    public var changeRequests: any ChangeRequestStore { SQLChangeRequestStore(engine: self) }
    public var signIns: any SignInStore { SQLSignInStore(engine: self) }
    public var webhooks: any WebhookStore { WebhookOutbox(engine: self) }
    public var usage: any UsageStore { SQLUsageStore(engine: self) }

    /// The committed value of `store_revision`, which every announced write increments in its
    /// own transaction.
    ///
    /// A row, not a counter of commits (SQLite's `PRAGMA data_version` moves with any commit,
    /// audit rows and webhook attempts included, and PostgreSQL has none a client can read
    /// cheaply), nor a sequence (`nextval` is not transactional, so a reader could see the new
    /// value before the change it stands for is visible, take the old state for the new one and
    /// never look again): the row becomes visible exactly together with the write that moved it.
    public func changeToken() throws(StoreError) -> StoreChangeToken {
        try read { connection in
            StoreChangeToken(try connection.rows("SELECT revision FROM store_revision", []) { $0.int64(at: 0) }.first ?? 0)
        }
    }

    /// No listener: one machine's database, whose workers announce their own writes.
    public func makeChangeListener(name: String) -> (any StoreChangeListener)? { nil }
}
