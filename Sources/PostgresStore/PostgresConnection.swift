import CLibPQ
public import ConfigStore
import Foundation

/// One blocking libpq connection.
///
/// Threading: libpq forbids using one `PGconn` from two threads at once, so a connection has
/// one user at a time (the store keeps each behind a `Mutex`). Results come back in binary
/// format. Server notices (warnings, `NOTICE`s, the FATAL text of a terminated backend) go to
/// `onNotice` instead of libpq's default, which prints them on stderr.
public final class PostgresConnection {
    /// What the connection was made from (the password is never printed).
    public let settings: PostgresConnectionSettings
    private var handle: OpaquePointer?
    private let notices: NoticeSink
    /// When set, every statement must be answered by then, or the connection is closed (its
    /// protocol state is unknown) and the statement throws (`PostgresError.isTimeout`). A
    /// silent network otherwise holds a statement until TCP gives up, half a minute or more.
    public var deadline: ContinuousClock.Instant?

    /// Connects and waits until the server accepts the session.
    /// - Parameters:
    ///   - settings: where to connect (see `PostgresConnectionSettings`).
    ///   - deadline: when connecting gives up (libpq's `connect_timeout` otherwise); also the
    ///     connection's first `deadline`.
    ///   - onNotice: receives each notice or warning as one line.
    /// - Throws: `PostgresError` without SQLSTATE, with libpq's reason minus the password.
    public init(
        settings: PostgresConnectionSettings, deadline: ContinuousClock.Instant? = nil,
        onNotice: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(PostgresError) {
        self.settings = settings
        notices = NoticeSink(onNotice)
        let keywords = settings.parameters.map { strdup($0.keyword) } + [nil]
        let values = settings.parameters.map { strdup($0.value) } + [nil]
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let connection = keywords.map { UnsafePointer($0) }.withUnsafeBufferPointer { keywordPointers in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { valuePointers in
                deadline == nil
                    ? PQconnectdbParams(keywordPointers.baseAddress, valuePointers.baseAddress, 0)
                    : PQconnectStartParams(keywordPointers.baseAddress, valuePointers.baseAddress, 0)
            }
        }
        guard let connection else { throw connectionError("cannot connect: out of memory") }
        handle = connection
        self.deadline = deadline
        if case .failure(let error) = Result(catching: { () throws(PostgresError) in try finishOpening(connection) }) {
            close()
            throw error
        }
        PQsetNoticeReceiver(connection, { context, result in
            guard let context, let result, let text = PQresultErrorMessage(result) else { return }
            Unmanaged<NoticeSink>.fromOpaque(context).takeUnretainedValue().receive(String(cString: text))
        }, Unmanaged.passUnretained(notices).toOpaque())
    }

    /// Waits for the session (by `deadline` when set) and makes sends non-blocking.
    private func finishOpening(_ connection: OpaquePointer) throws(PostgresError) {
        if let deadline { try finishConnecting(by: deadline) }
        guard PQstatus(connection) == CONNECTION_OK else {
            throw connectionError("cannot connect: \(lastErrorMessage())")
        }
        // Sends never block (`PQexec` without a deadline still does, as libpq documents).
        guard PQsetnonblocking(connection, 1) == 0 else { throw connectionError(lastErrorMessage()) }
    }

    /// `init(settings:onNotice:)` from a URL or conninfo string.
    public convenience init(
        _ urlOrConninfo: String, applicationName: String = "remote-config-server",
        onNotice: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(PostgresError) {
        try self.init(
            settings: PostgresConnectionSettings(urlOrConninfo, applicationName: applicationName), onNotice: onNotice)
    }

    deinit {
        close()
    }

    /// Whether the connection is open and usable. False after `close()` and after libpq saw
    /// the connection break; such a connection stays broken (make a new one).
    public var isOpen: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// The server process serving this connection (`pg_backend_pid()`), 0 when closed.
    public var backendPID: Int32 {
        handle.map(PQbackendPID) ?? 0
    }

    /// Closes the connection. Idempotent; later statements throw.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    // MARK: Statements

    /// Runs one statement with `$1...$n` parameters.
    /// - Returns: its rows (empty for a command).
    /// - Throws: `PostgresError` with the server's SQLSTATE, or without one when the connection
    ///   is broken.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresResult {
        let connection = try openHandle()
        let encoded = try EncodedParameters(parameters)
        defer { encoded.deallocate() }
        guard let deadline else {
            return try check(PQexecParams(
                connection, sql, Int32(parameters.count), encoded.types, encoded.values, encoded.lengths, encoded.formats, 1))
        }
        let sent = PQsendQueryParams(
            connection, sql, Int32(parameters.count), encoded.types, encoded.values, encoded.lengths, encoded.formats, 1)
        guard sent == 1 else { throw connectionError(lastErrorMessage()) }
        return try check(awaitResult(by: deadline))
    }

    /// Runs `sql`, which may hold several statements separated by `;` and no parameters, as
    /// one simple query (for migration files).
    public func executeScript(_ sql: String) throws(PostgresError) {
        let handle = try openHandle()
        let result: OpaquePointer?
        if let deadline {
            guard PQsendQuery(handle, sql) == 1 else { throw connectionError(lastErrorMessage()) }
            result = try awaitResult(by: deadline)
        } else {
            result = PQexec(handle, sql)
        }
        _ = try check(result)
    }

    /// The rows of a query, each turned into a value by `row`.
    public func query<Row>(
        _ sql: String, _ parameters: [PostgresValue] = [], row: (PostgresRow) throws -> Row
    ) throws -> [Row] {
        let result = try execute(sql, parameters)
        return try (0..<result.rowCount).map { try row(result.row($0)) }
    }

    /// The first row of a query turned into a value by `row`, or nil when there is none.
    public func queryFirst<Row>(
        _ sql: String, _ parameters: [PostgresValue] = [], row: (PostgresRow) throws -> Row
    ) throws -> Row? {
        let result = try execute(sql, parameters)
        return result.rowCount == 0 ? nil : try row(result.row(0))
    }

    // MARK: Internals

    /// The libpq handle, or an error when closed.
    func openHandle() throws(PostgresError) -> OpaquePointer {
        guard let handle else { throw connectionError("the connection is closed") }
        return handle
    }

    /// libpq's last message for this connection, trimmed.
    func lastErrorMessage() -> String {
        let text = handle.flatMap { PQerrorMessage($0) }.map { String(cString: $0) } ?? "unknown error"
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A failure without server answer: names the server, never the password.
    func connectionError(_ message: String) -> PostgresError {
        PostgresError(sqlState: nil, message: settings.scrubbed("\(settings): \(message)"))
    }

    func check(_ result: OpaquePointer?) throws(PostgresError) -> PostgresResult {
        guard let result else { throw connectionError(lastErrorMessage()) }
        let owned = PostgresResult(handle: result)
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return owned
        default:
            throw error(from: result)
        }
    }

    func error(from result: OpaquePointer) -> PostgresError {
        func field(_ code: Int32) -> String? {
            PQresultErrorField(result, code).map { settings.scrubbed(String(cString: $0)) }
        }
        // A lost connection produces a result with libpq's message and no SQLSTATE.
        guard let sqlState = field(rcs_pq_diag_sqlstate()) else {
            return connectionError(field(rcs_pq_diag_message_primary()) ?? lastErrorMessage())
        }
        return PostgresError(
            sqlState: sqlState, message: field(rcs_pq_diag_message_primary()) ?? settings.scrubbed(lastErrorMessage()),
            detail: field(rcs_pq_diag_message_detail()), constraint: field(rcs_pq_diag_constraint_name()))
    }
}

/// Holds the notice closure where libpq's C callback can reach it through a raw pointer; the
/// connection keeps it alive as long as the `PGconn`.
private final class NoticeSink {
    let receive: @Sendable (String) -> Void

    init(_ receive: @escaping @Sendable (String) -> Void) {
        self.receive = { receive($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}

/// `PostgresValue`s laid out as the four arrays `PQexecParams` takes; freed by `deallocate()`.
private struct EncodedParameters {
    private static let textType: UInt32 = 25, int8Type: UInt32 = 20, byteaType: UInt32 = 17

    let types: UnsafeMutablePointer<UInt32>
    let values: UnsafeMutablePointer<UnsafePointer<CChar>?>
    let lengths: UnsafeMutablePointer<Int32>
    let formats: UnsafeMutablePointer<Int32>
    private let count: Int

    init(_ parameters: [PostgresValue]) throws(PostgresError) {
        count = parameters.count
        let capacity = max(count, 1)
        types = .allocate(capacity: capacity)
        values = .allocate(capacity: capacity)
        lengths = .allocate(capacity: capacity)
        formats = .allocate(capacity: capacity)
        for (index, parameter) in parameters.enumerated() {
            let bytes: [UInt8]?
            switch parameter {
            case .null:
                (types[index], formats[index], bytes) = (0, 0, nil)
            case .integer(let number):
                (types[index], formats[index], bytes) = (Self.int8Type, 0, Array(String(number).utf8))
            case .text(let string):
                (types[index], formats[index], bytes) = (Self.textType, 0, Array(string.utf8))
            case .bytes(let data):
                (types[index], formats[index], bytes) = (Self.byteaType, 1, data)
            }
            lengths[index] = Int32(bytes?.count ?? 0)
            values[index] = bytes.map(Self.copy)
        }
        // Text-format values are read up to the first NUL, and PostgreSQL text cannot hold one:
        // refuse instead of silently cutting the value short.
        if let bad = parameters.firstIndex(where: { if case .text(let text) = $0 { text.utf8.contains(0) } else { false } }) {
            deallocate()
            throw PostgresError(.characterNotInRepertoire, message: "text parameter $\(bad + 1) contains a NUL character")
        }
    }

    /// A NUL-terminated heap copy; never a NULL pointer, which would mean SQL NULL.
    private static func copy(_ bytes: [UInt8]) -> UnsafePointer<CChar> {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        bytes.withUnsafeBytes { raw in
            UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress ?? UnsafeRawPointer(buffer), byteCount: raw.count)
        }
        buffer[bytes.count] = 0
        return UnsafePointer(buffer)
    }

    func deallocate() {
        for index in 0..<count { values[index].map { UnsafeMutablePointer(mutating: $0).deallocate() } }
        types.deallocate()
        values.deallocate()
        lengths.deallocate()
        formats.deallocate()
    }
}
