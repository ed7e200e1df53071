/// A failure reported by libpq or the server: the SQLSTATE when the server sent one, its
/// message (never containing the connection's password) and the constraint it names, if any.
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505`, `08006`, ...), or nil when no server answered: the
    /// connection could not be made or was lost. `code` names it.
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

    /// A failure with one of the named codes.
    public init(_ code: Code, message: String) {
        self.init(sqlState: code.raw, message: message)
    }

    /// What the client knows of a failure no server answer explains.
    public enum Uncertainty: Sendable, Equatable {
        /// No answer came by the connection's deadline; the connection was closed.
        case timedOut
        /// The connection failed after `COMMIT` was sent: the transaction may have committed.
        case commitOutcomeUnknown
    }

    /// Set for the failures whose outcome the server did not tell.
    public var uncertainty: Uncertainty?

    /// No answer came by the connection's deadline.
    static func timedOut(_ message: String) -> PostgresError {
        var error = PostgresError(sqlState: nil, message: "timed out: " + message)
        error.uncertainty = .timedOut
        return error
    }

    /// Whether the connection's deadline passed before the server answered.
    public var isTimeout: Bool { uncertainty == .timedOut }

    /// The SQLSTATE, or nil when no server answered.
    public var code: Code? { sqlState.map(Code.init) }

    /// Whether the failure says "try again later" rather than "this statement is wrong": no
    /// server answer, a lost connection (class 08), the server out of resources (class 53) or
    /// going away (57P01-57P03), or a statement given up because it waited too long or lost a
    /// race it can win on a second try (57014, 55P03, class 40).
    public var isUnavailable: Bool {
        guard let code else { return true }
        return [.connectionException, .insufficientResources, .transactionRollback].contains(code.errorClass)
            || [.adminShutdown, .crashShutdown, .cannotConnectNow, .queryCanceled, .lockNotAvailable].contains(code)
    }

    /// Whether the server refused a value it cannot hold (class 22: a NUL in text, a number out
    /// of range): the caller's input, not the server, is wrong.
    public var isDataException: Bool { code?.errorClass == .dataException }

    public var description: String {
        var text = "PostgreSQL error"
        if let sqlState { text += " \(sqlState)" }
        text += ": \(message)"
        if let detail { text += " (\(detail))" }
        return text
    }
}

extension PostgresError {
    /// A SQLSTATE by name (PostgreSQL's Appendix A); the first two characters are its class,
    /// whose own code ends in `000`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The five characters.
        public let raw: String

        public init(_ raw: String) { self.raw = raw }

        /// The class this code belongs to (`23505` → `23000`).
        public var errorClass: Code { Code(raw.prefix(2) + "000") }

        public var description: String { raw }

        // Classes.
        public static let connectionException = Code("08000")
        public static let dataException = Code("22000")
        public static let transactionRollback = Code("40000")
        public static let insufficientResources = Code("53000")

        public static let characterNotInRepertoire = Code("22021")
        public static let foreignKeyViolation = Code("23503")
        public static let uniqueViolation = Code("23505")
        public static let inFailedSQLTransaction = Code("25P02")
        public static let syntaxError = Code("42601")
        public static let lockNotAvailable = Code("55P03")
        public static let queryCanceled = Code("57014")
        public static let adminShutdown = Code("57P01")
        public static let crashShutdown = Code("57P02")
        public static let cannotConnectNow = Code("57P03")
        public static let diskFull = Code("53100")
    }
}
