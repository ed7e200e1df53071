/// Where a change request stands (docs/change-control.md): the one list of statuses, which the
/// store keeps as `StoredChangeRequest.status` and the server's rules step through.
public enum ChangeRequestStatus: String, Sendable, CaseIterable {
    case open, approved, scheduled, applied, rejected, cancelled, conflicted

    /// No step leads anywhere from these.
    public var isFinal: Bool { self == .applied || self == .rejected || self == .cancelled }

    /// The statuses a publish may complete (`ChangeRequestCompletion`): a conflicted request is
    /// edited onto the active version first, a final one stays as it is.
    public static let completableByPublish: [ChangeRequestStatus] = [.open, .approved, .scheduled]
}
