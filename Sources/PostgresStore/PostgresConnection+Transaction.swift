import CLibPQ

extension PostgresConnection {
    /// Runs `body` in a READ COMMITTED transaction and commits it.
    ///
    /// If `body` or `COMMIT` throws, the transaction is rolled back (when the connection still
    /// works) and the *first* error is rethrown. A `COMMIT` that the server answers with
    /// `ROLLBACK` (the transaction had failed) throws. Transactions do not nest.
    @discardableResult
    public func inTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        let handle = try openHandle()
        precondition(PQtransactionStatus(handle) == PQTRANS_IDLE, "nested transaction on \(settings)")
        try execute("BEGIN")
        let result: Result
        do {
            result = try body()
            let commit = try execute("COMMIT")
            guard commit.commandStatus == "COMMIT" else {
                throw PostgresError(.inFailedSQLTransaction, message: "the transaction failed and was rolled back")
            }
        } catch {
            rollbackIfNeeded()
            throw error
        }
        return result
    }

    private func rollbackIfNeeded() {
        guard let handle = try? openHandle(), PQstatus(handle) == CONNECTION_OK,
            PQtransactionStatus(handle) != PQTRANS_IDLE
        else { return }
        _ = try? execute("ROLLBACK")
    }
}
