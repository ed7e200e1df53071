import ConfigStore

extension PostgresTemplateStore {
    /// Maps any failure of a store method into the one error type of `TemplateStore`.
    ///
    /// Situations with a specific `StoreError` are detected where they happen (a missing
    /// project, a taken project number, a version mismatch) and thrown as such; what reaches
    /// this mapping from PostgreSQL is either bad data the checks before it let through (class 22,
    /// CHECK violations: `invalidArgument`) or the server failing, going away or refusing
    /// (`unavailable`, "try again later").
    static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as PostgresError:
            if error.isCheckViolation || error.sqlState?.hasPrefix("22") == true {
                return .invalidArgument(error.message)
            }
            return .unavailable(error.description)
        default:
            return .unavailable("\(error)")
        }
    }
}
