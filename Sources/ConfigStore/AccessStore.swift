/// Who may do what: principals, memberships, tokens and console sessions (`StoredAccessRecord`),
/// and each template's approval policy: `ConfigDatabase.access`.
///
/// What every worker keeps in memory is announced (`StoreChange.access`): principal, membership
/// and token writes, any delete (so that a session ended on one node is ended everywhere) and
/// policy writes. A session's own `put` and `update` are not: a sign-in or a keep-alive must not
/// make every worker and node read the records again; the server looks a session up by id.
public protocol AccessStore: Sendable {
    /// Writes a record, replacing the one with the same kind and id.
    /// - Throws: `invalidArgument` for an id that is empty or longer than 512 bytes.
    func put(_ kind: StoredAccessRecord.Kind, id: String, record: [UInt8]) throws(StoreError)

    /// Replaces a record that exists, and only then (a session kept alive must not come back
    /// after its deletion); whether it existed.
    func update(_ kind: StoredAccessRecord.Kind, id: String, record: [UInt8]) throws(StoreError) -> Bool

    /// Deletes a record; whether it was there.
    @discardableResult
    func delete(_ kind: StoredAccessRecord.Kind, id: String) throws(StoreError) -> Bool

    /// One record, or nil.
    func record(_ kind: StoredAccessRecord.Kind, id: String) throws(StoreError) -> StoredAccessRecord?

    /// Every record of `kinds`, by kind and id (byte order): one query.
    func records(kinds: Set<StoredAccessRecord.Kind>) throws(StoreError) -> [StoredAccessRecord]

    /// Writes a template's approval policy.
    func putChangePolicy(_ policy: StoredChangePolicy) throws(StoreError)

    /// Every template's approval policy.
    func changePolicies() throws(StoreError) -> [StoredChangePolicy]
}

extension AccessStore {
    /// Every record of every kind.
    public func records() throws(StoreError) -> [StoredAccessRecord] {
        try records(kinds: Set(StoredAccessRecord.Kind.allCases))
    }
}
