/// One schema migration: the SQL of a file named `NNNN_name.sql`.
public struct Migration: Sendable, Equatable {
    /// The number before the underscore; migrations run in increasing order.
    public let version: Int
    /// The part after the underscore, without `.sql`.
    public let name: String
    /// The statements to run. They must not contain `BEGIN`/`COMMIT`: the migrator wraps each
    /// file and its bookkeeping row in one transaction.
    public let sql: String

    /// - Parameters:
    ///   - version: order key, > 0.
    ///   - name: a label for errors and the bookkeeping row.
    ///   - sql: the migration's statements.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// The file name this migration comes from, e.g. `0001_initial.sql`.
    public var fileName: String {
        let digits = String(version)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "_" + name + ".sql"
    }

    /// Splits `0001_initial.sql` into `(1, "initial")`; nil for any other shape.
    static func parseFileName(_ fileName: String) -> (version: Int, name: String)? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore]
        let name = stem[stem.index(after: underscore)...]
        guard digits.count >= 4, digits.allSatisfy(\.isASCIIDigit),
            let version = Int(digits), version > 0,
            !name.isEmpty, name.allSatisfy({ $0.isASCIIDigit || $0.isASCIILetter || $0 == "_" || $0 == "-" })
        else { return nil }
        return (version, String(name))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
    fileprivate var isASCIILetter: Bool { isASCII && isLetter }
}
