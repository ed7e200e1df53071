import ConfigStore

extension PostgresConfigDatabase {
    /// Maps any failure of a store method into the one error type of the stores, `StoreError`.
    ///
    /// Situations with a specific `StoreError` are detected where they happen (a missing
    /// project, a taken project number, a version mismatch) and thrown as such, as the SQLite
    /// store does. From PostgreSQL, what `PostgresError.isUnavailable` calls "try again later" is
    /// `unavailable`, and a value PostgreSQL cannot hold (`isDataException`, e.g. a NUL character
    /// in text) is `invalidArgument`.
    static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as PostgresError where error.code == .diskFull:
            return .outOfSpace(error.description)
        case let error as PostgresError where error.uncertainty == .commitOutcomeUnknown:
            return .outcomeUnknown(error.description)
        case let error as PostgresError where error.isUnavailable:
            return .unavailable(error.description)
        case let error as PostgresError where error.isDataException:
            return .invalidArgument(error.message)
        case let error as PostgresError:
            // A statement refused although the checks before it passed (a broken constraint, a
            // bug): no StoreError names it, and the contract calls a failing engine unavailable.
            return .unavailable(error.description)
        default:
            return .unavailable("\(error)")
        }
    }
}
