public import Foundation

/// One entry of the audit log: who did what, from where, to what, and how it ended.
public struct AuditEntry: Sendable, Equatable {
    /// Given by the store when appended (0 before), growing with every entry.
    public var id: Int64
    public var time: Date
    /// The principal's id (or a configured token's name), and how to show it.
    public var actorID: String
    public var actorName: String
    /// `API`, `CONSOLE` or `CLI`.
    public var origin: String
    public var requestID: String
    public var clientAddress: String
    /// `template.publish`, `token.revoke`, …
    public var action: String
    public var project: String?
    public var namespace: String?
    /// What else was acted on: a principal, a token id, a key's name.
    public var target: String?
    /// The version the action made, if it made one.
    public var versionNumber: Int64?
    /// For a new version: the `:diff` answer against the version before, as JSON.
    public var diff: [UInt8]?
    /// `ok`, `denied`, or `failed <status>`.
    public var outcome: String

    /// - Parameters: see the properties.
    public init(
        id: Int64 = 0, time: Date, actorID: String, actorName: String, origin: String, requestID: String,
        clientAddress: String, action: String, project: String? = nil, namespace: String? = nil, target: String? = nil,
        versionNumber: Int64? = nil, diff: [UInt8]? = nil, outcome: String
    ) {
        self.id = id
        self.time = time
        self.actorID = actorID
        self.actorName = actorName
        self.origin = origin
        self.requestID = requestID
        self.clientAddress = clientAddress
        self.action = action
        self.project = project
        self.namespace = namespace
        self.target = target
        self.versionNumber = versionNumber
        self.diff = diff
        self.outcome = outcome
    }
}

/// The filters and page of `AuditLog.entries`: newest first.
public struct AuditQuery: Sendable, Equatable {
    public var actorID: String?
    public var action: String?
    public var project: String?
    /// Entries at or after this time.
    public var startTime: Date?
    /// Entries before this time.
    public var endTime: Date?
    public var pageSize: Int
    /// `nextPageToken` of the previous page; nil or empty for the first.
    public var pageToken: String?

    /// - Parameters: see the properties.
    public init(actorID: String? = nil, action: String? = nil, project: String? = nil, startTime: Date? = nil,
                endTime: Date? = nil, pageSize: Int = 100, pageToken: String? = nil) {
        self.actorID = actorID
        self.action = action
        self.project = project
        self.startTime = startTime
        self.endTime = endTime
        self.pageSize = pageSize
        self.pageToken = pageToken
    }
}
