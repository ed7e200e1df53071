extension SQLiteDatabase {
    /// How a transaction takes its locks (`BEGIN DEFERRED | IMMEDIATE | EXCLUSIVE`).
    public enum TransactionKind: String, Sendable {
        /// Takes locks on first read or write; a later write may fail with `SQLITE_BUSY`.
        case deferred = "DEFERRED"
        /// Takes the write lock at `BEGIN`, waiting up to the busy timeout, so read-then-write
        /// logic (head + 1) never races another writer.
        case immediate = "IMMEDIATE"
        /// Like immediate; in WAL mode the same.
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction and commits it.
    ///
    /// If `body` or `COMMIT` throws, the transaction is rolled back and the *first* error is
    /// rethrown (a failing `ROLLBACK` never hides it). Transactions do not nest.
    @discardableResult
    public func inTransaction<Result>(
        _ kind: TransactionKind = .deferred, _ body: () throws -> Result
    ) throws -> Result {
        let alreadyOpen = isInTransaction
        precondition(!alreadyOpen, "nested transaction on \(path)")
        try execute("BEGIN \(kind.rawValue)")
        let result: Result
        do {
            result = try body()
            try execute("COMMIT")
        } catch {
            rollbackIfNeeded()
            throw error
        }
        return result
    }

    private func rollbackIfNeeded() {
        // Some errors (SQLITE_FULL, SQLITE_IOERR, ...) roll back by themselves; a second
        // ROLLBACK would only fail with "no transaction is active".
        guard isInTransaction else { return }
        _ = try? execute("ROLLBACK")
    }
}
