import CLibPQ

extension PostgresConnection {
    /// Runs `body` in a READ COMMITTED transaction and commits it.
    ///
    /// If `body` or `COMMIT` throws, the transaction is rolled back (when the connection still
    /// works) and the *first* error is rethrown. A `COMMIT` that the server answers with
    /// `ROLLBACK` (the transaction had failed) throws. Transactions do not nest.
    ///
    /// With a `deadline`, `COMMIT` is sent only while time is left, and a connection that fails
    /// after it was sent (no answer by the deadline, or lost) throws with `uncertainty`
    /// `.commitOutcomeUnknown`: the server may have committed, and the caller must not run the
    /// transaction again as if it had not.
    ///
    /// - Parameter opening: statements without parameters whose results are not needed (a
    ///   `LISTEN`, a lock), sent with `BEGIN` as one simple query: one round trip for both.
    @discardableResult
    public func inTransaction<Result>(opening: [String] = [], _ body: () throws -> Result) throws -> Result {
        let handle = try openHandle()
        precondition(PQtransactionStatus(handle) == PQTRANS_IDLE, "nested transaction on \(settings)")
        try executeScript((["BEGIN"] + opening).joined(separator: "; "))
        let result: Result
        do {
            result = try body()
            if let deadline, ContinuousClock.now >= deadline {
                throw PostgresError.timedOut("\(settings): the deadline passed before COMMIT")
            }
            let commit = try sendCommit()
            guard commit.commandStatus == "COMMIT" else {
                throw PostgresError(.inFailedSQLTransaction, message: "the transaction failed and was rolled back")
            }
        } catch {
            rollbackIfNeeded()
            throw error
        }
        return result
    }

    /// `COMMIT`; a failure without the server's answer leaves the outcome unknown.
    private func sendCommit() throws(PostgresError) -> PostgresResult {
        switch Result(catching: { () throws(PostgresError) in try execute("COMMIT") }) {
        case .success(let result):
            return result
        case .failure(var error):
            if error.sqlState == nil { error.uncertainty = .commitOutcomeUnknown }
            throw error
        }
    }

    private func rollbackIfNeeded() {
        guard let handle = try? openHandle(), PQstatus(handle) == CONNECTION_OK,
            PQtransactionStatus(handle) != PQTRANS_IDLE
        else { return }
        _ = try? execute("ROLLBACK")
    }
}
