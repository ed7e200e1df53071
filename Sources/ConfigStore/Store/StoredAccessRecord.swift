public import Foundation

/// One record of who may do what: a principal, a membership, a token or a console session, as the server encodes
/// it (the store keeps the bytes as given). Records are few; every worker keeps those but the sessions in memory,
/// and a session can be looked up by id (`AccessStore.record`).
public struct StoredAccessRecord: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case principal, membership, token, session
    }

    public var kind: Kind
    /// Unique within its kind; 1 to 512 bytes.
    public var id: String
    public var record: [UInt8]
    /// When the record was last written, at millisecond precision.
    public var updateTime: Date

    /// - Parameters: see the properties.
    public init(kind: Kind, id: String, record: [UInt8], updateTime: Date) {
        self.kind = kind
        self.id = id
        self.record = record
        self.updateTime = updateTime
    }
}
