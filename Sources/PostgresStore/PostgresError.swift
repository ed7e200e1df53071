/// A failure reported by libpq or the server: the SQLSTATE when the server sent one, its
/// message (never containing the connection's password) and the constraint it names, if any.
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505`, `08006`, ...), or nil when no server answered: the
    /// connection could not be made or was lost.
    public let sqlState: String?
    /// The server's primary message, or libpq's for a client-side failure.
    public let message: String
    /// The server's detail line, if any.
    public let detail: String?
    /// The constraint a violation names (`projects_number_key`), if any.
    public let constraint: String?

    /// - Parameters: see the properties.
    public init(sqlState: String?, message: String, detail: String? = nil, constraint: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.constraint = constraint
    }

    /// Whether the failure says "the server is unreachable, going away or out of resources"
    /// rather than "this statement is wrong": no server answer, class 08 (connection exception),
    /// 57P01-57P03 (shutdown, crash shutdown, cannot connect now), class 53 (insufficient
    /// resources).
    public var isUnavailable: Bool {
        guard let sqlState else { return true }
        return sqlState.hasPrefix("08") || sqlState.hasPrefix("53")
            || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    /// `23505`: a unique or primary key violation.
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// `23503`: a foreign key violation.
    public var isForeignKeyViolation: Bool { sqlState == "23503" }

    public var description: String {
        var text = "PostgreSQL error"
        if let sqlState { text += " \(sqlState)" }
        text += ": \(message)"
        if let detail { text += " (\(detail))" }
        return text
    }
}
