import ConfigStore

extension PostgresTemplateStore {
    /// Maps any failure of a store method into the one error type of `TemplateStore`.
    ///
    /// Situations with a specific `StoreError` are detected where they happen (a missing
    /// project, a taken project number, a version mismatch) and thrown as such, as the SQLite
    /// store does. What reaches this mapping from PostgreSQL is a value PostgreSQL cannot hold
    /// (class 22, e.g. a NUL character in text: `invalidArgument`), or else the server failing,
    /// going away or refusing, or a broken constraint the checks should have caught
    /// (`unavailable`, "try again later").
    static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as PostgresError:
            if error.sqlState?.hasPrefix("22") == true {
                return .invalidArgument(error.message)
            }
            return .unavailable(error.description)
        default:
            return .unavailable("\(error)")
        }
    }
}
