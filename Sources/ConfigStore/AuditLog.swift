public import Foundation

/// The audit log: `ConfigDatabase.audit`. No worker keeps it in memory: nothing is announced.
public protocol AuditLog: Sendable {
    /// Appends an entry (its `id` is ignored), timed no earlier than the entry appended before
    /// it, so that times never go back in id order; returns the id given. Nothing edits or
    /// deletes an entry but `prune`.
    @discardableResult
    func append(_ entry: AuditEntry) throws(StoreError) -> Int64

    /// Entries newest first, filtered and paged.
    /// - Throws: `invalidArgument` for a page size out of 1...1000, `invalidPageToken`.
    func entries(_ query: AuditQuery) throws(StoreError) -> (entries: [AuditEntry], nextPageToken: String?)

    /// Removes the entries older than `cutoff` (retention); how many.
    @discardableResult
    func prune(before cutoff: Date) throws(StoreError) -> Int
}
