public import ConfigCore
public import Foundation

/// The event types a webhook endpoint may want. Publishes, rollbacks and canary steps are
/// written by `TemplateVersioning`; the others by whatever makes the change, with
/// `WebhookStore.appendEvent` or `StoreConnection.insertEvent` in its own transaction.
public enum WebhookEventType: String, Sendable, CaseIterable {
    case templatePublish = "template.publish"
    case templateRollback = "template.rollback"
    case canaryStart = "canary.start"
    case canaryShare = "canary.share"
    case canaryPromote = "canary.promote"
    case canaryAbort = "canary.abort"
    case changeRequestCreated = "changeRequest.created"
    case changeRequestEdited = "changeRequest.edited"
    case changeRequestApproved = "changeRequest.approved"
    case changeRequestRejected = "changeRequest.rejected"
    case changeRequestApplied = "changeRequest.applied"
    case changeRequestCancelled = "changeRequest.cancelled"
    case changeRequestScheduled = "changeRequest.scheduled"
    case changeRequestConflicted = "changeRequest.conflicted"
    case scheduleApplied = "schedule.applied"
    case scheduleFailed = "schedule.failed"
    /// A parameter became stale (docs/insights.md): no evaluation, or one value served to every
    /// client, for the project's stale days.
    case parameterStale = "parameter.stale"
    /// Sent to one endpoint on request ("send a test event"), whatever it wants.
    case test
}

/// One event of the outbox: written in the transaction of the change it reports, then sent to
/// every endpoint of the project that wanted its type when it was written.
public struct WebhookEvent: Sendable, Equatable {
    /// The version an event reports, as stored (the server shows it as Firebase's `Version`).
    public struct Update: Sendable, Equatable, Codable {
        public var versionNumber: Int64
        /// Milliseconds since the epoch.
        public var updateTime: Int64
        public var updateUser: String?
        public var description: String?
        public var updateOrigin: String?
        public var updateType: String?
        public var rollbackSource: Int64?
        public var canaryAction: String?
        public var canarySource: Int64?
        public var promotedFrom: PromotionSource?

        /// - Parameters: see the properties.
        public init(
            versionNumber: Int64, updateTime: Int64, updateUser: String?, description: String? = nil,
            updateOrigin: String? = nil, updateType: String? = nil, rollbackSource: Int64? = nil,
            canaryAction: String? = nil, canarySource: Int64? = nil, promotedFrom: PromotionSource? = nil
        ) {
            self.versionNumber = versionNumber
            self.updateTime = updateTime
            self.updateUser = updateUser
            self.description = description
            self.updateOrigin = updateOrigin
            self.updateType = updateType
            self.rollbackSource = rollbackSource
            self.canaryAction = canaryAction
            self.canarySource = canarySource
            self.promotedFrom = promotedFrom
        }

        /// What `version` records.
        public init(_ version: StoredVersion) {
            self.init(
                versionNumber: version.versionNumber, updateTime: TemplateStoreRules.milliseconds(version.updateTime),
                updateUser: version.updateUser, description: version.description, updateOrigin: version.updateOrigin,
                updateType: version.updateType.rawValue, rollbackSource: version.rollbackSource,
                canaryAction: version.canaryAction?.rawValue, canarySource: version.canarySource, promotedFrom: version.promotedFrom)
        }
    }

    /// `evt_` and random hex: the `webhook-id` of every attempt, stable across retries.
    public var id: String
    /// A `WebhookEventType` raw value.
    public var type: String
    public var project: String
    public var namespace: String?
    public var time: Date
    /// The version it reports, if any.
    public var update: Update?
    /// The version the payload's diff starts from (0: the empty template); nil for no diff.
    public var diffFrom: Int64?
    /// A JSON object of whatever else the payload carries (`data`), as its writer encoded it.
    public var data: [UInt8]?
    /// The payload as first sent; nil until then.
    public var body: [UInt8]?

    /// - Parameters: see the properties; `id` defaults to a new random one.
    public init(
        id: String = WebhookEvent.newID(), type: String, project: String, namespace: String?, time: Date,
        update: Update? = nil, diffFrom: Int64? = nil, data: [UInt8]? = nil, body: [UInt8]? = nil
    ) {
        self.id = id
        self.type = type
        self.project = project
        self.namespace = namespace
        self.time = time
        self.update = update
        self.diffFrom = diffFrom
        self.data = data
        self.body = body
    }

    /// The event of a version a template write appended: its diff starts at `diffFrom`
    /// (the version before, unless given).
    public init(_ type: WebhookEventType, version: StoredVersion, diffFrom: Int64? = nil, data: [UInt8]? = nil) {
        self.init(
            type: type.rawValue, project: version.project, namespace: version.namespace.rawValue, time: version.updateTime,
            update: Update(version), diffFrom: diffFrom ?? version.versionNumber - 1, data: data)
    }

    /// A new event id: `evt_` and 16 random bytes in hex.
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text = Array("evt_".utf8)
        for _ in 0..<16 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]]
        }
        return String(decoding: text, as: UTF8.self)
    }
}
