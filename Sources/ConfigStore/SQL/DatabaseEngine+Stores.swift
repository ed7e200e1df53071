/// What every engine is as a `ConfigDatabase`: each capability written once in SQL over it.
extension DatabaseEngine {
    public var templates: any TemplateStore { TemplateVersioning(engine: self) }
    public var projects: any ProjectStore { SQLProjectStore(engine: self) }
    public var access: any AccessStore { SQLAccessStore(engine: self) }
    public var audit: any AuditLog { SQLAuditLog(engine: self) }
    public var changeRequests: any ChangeRequestStore { SQLChangeRequestStore(engine: self) }
    public var signIns: any SignInStore { SQLSignInStore(engine: self) }
    public var webhooks: any WebhookStore { WebhookOutbox(engine: self) }

    /// No listener: one machine's database, whose workers announce their own writes.
    public func makeChangeListener(name: String) -> (any StoreChangeListener)? { nil }
}
