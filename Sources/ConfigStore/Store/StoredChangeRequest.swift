public import ConfigCore
public import Foundation

/// A change request as the store keeps it: its details are the server's JSON `record` (kept as
/// given); the columns are what the store filters on and what applying it writes.
public struct StoredChangeRequest: Sendable, Equatable {
    /// Given by the store on insert (ignored there).
    public var id: Int64
    public var project: String
    public var namespace: TemplateNamespace
    /// A `ChangeRequestStatus` raw value.
    public var status: String
    /// When a `scheduled` request is applied.
    public var scheduleTime: Date?
    /// Grows by one with every write: an update names the revision it read.
    public var revision: Int64
    /// The version that applied it.
    public var appliedVersion: Int64?
    public var record: [UInt8]
    /// Given by the store's clock when it is written (ignored there).
    public var createTime: Date
    public var updateTime: Date

    /// - Parameters: see the properties.
    public init(
        id: Int64 = 0, project: String, namespace: TemplateNamespace, status: String, scheduleTime: Date? = nil,
        revision: Int64 = 0, appliedVersion: Int64? = nil, record: [UInt8], createTime: Date = .distantPast, updateTime: Date = .distantPast
    ) {
        self.id = id
        self.project = project
        self.namespace = namespace
        self.status = status
        self.scheduleTime = scheduleTime
        self.revision = revision
        self.appliedVersion = appliedVersion
        self.record = record
        self.createTime = createTime
        self.updateTime = updateTime
    }
}

/// Marks a change request applied in the transaction of the version that applies it
/// (`PublishMetadata.completes`): the version and the request's new status commit together.
public struct ChangeRequestCompletion: Sendable, Equatable {
    public var id: Int64
    /// The revision the applier read; another write since makes the whole publish fail with
    /// `StoreError.changeRequestMoved`.
    public var expectedRevision: Int64
    /// The version the request was based on: a template that moved since makes the write fail
    /// with `StoreError.versionMismatch` (a rollback has no expected version of its own).
    public var baseVersion: Int64?
    /// Webhook events (`WebhookEventType` raw values) the application makes, each reporting the
    /// version written and carrying `eventData`, in the same transaction.
    public var events: [String]
    public var eventData: [UInt8]?
    /// The request's record once applied (who applied it), written with its status; nil keeps it.
    public var record: [UInt8]?

    public init(id: Int64, expectedRevision: Int64, baseVersion: Int64? = nil, events: [String] = [], eventData: [UInt8]? = nil,
                record: [UInt8]? = nil) {
        self.id = id
        self.expectedRevision = expectedRevision
        self.baseVersion = baseVersion
        self.events = events
        self.eventData = eventData
        self.record = record
    }
}

/// A template's approval policy, as the server encodes it.
public struct StoredChangePolicy: Sendable, Equatable {
    public var project: String
    public var namespace: TemplateNamespace
    public var record: [UInt8]

    public init(project: String, namespace: TemplateNamespace, record: [UInt8]) {
        self.project = project
        self.namespace = namespace
        self.record = record
    }
}
