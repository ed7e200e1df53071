import CLibPQ
import Foundation

/// Connection parameters parsed from a URL (`postgresql://user:secret@host:5432/db?sslmode=require`)
/// or a conninfo string (`host=... dbname=...`), with the settings a long-lived server connection
/// needs added where the caller gave none.
public struct PostgresConnectionSettings: Sendable, CustomStringConvertible {
    /// Added when absent. Without them a silently dead peer is noticed only after Linux's TCP
    /// keepalive defaults, over two hours; libpq ignores them on Unix sockets.
    public static let defaults: [(keyword: String, value: String)] = [
        ("keepalives_idle", "30"),
        ("keepalives_interval", "10"),
        ("keepalives_count", "3"),
        ("tcp_user_timeout", "30000"),
        ("connect_timeout", "10"),
    ]

    /// Every parameter given or added, as libpq keyword/value pairs.
    public private(set) var parameters: [(keyword: String, value: String)]

    /// Parses `urlOrConninfo` with libpq's own parser.
    /// - Parameter applicationName: `application_name` unless the string sets one (shows in
    ///   `pg_stat_activity`).
    /// - Throws: `PostgresError` (no SQLSTATE) with libpq's reason; it never repeats the input,
    ///   which may hold a password.
    public init(_ urlOrConninfo: String, applicationName: String = "remote-config-server") throws(PostgresError) {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(urlOrConninfo, &message) else {
            let reason = message.map { String(cString: $0) } ?? "out of memory"
            message.map { PQfreemem($0) }
            throw PostgresError(
                sqlState: nil,
                message: "invalid PostgreSQL URL or conninfo: \(reason.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        defer { PQconninfoFree(options) }
        var parsed: [(keyword: String, value: String)] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                parsed.append((String(cString: keyword), String(cString: value)))
            }
            option += 1
        }
        let given = Set(parsed.map(\.keyword))
        let added = (Self.defaults + [("application_name", applicationName)]).filter { !given.contains($0.keyword) }
        parameters = parsed + added
    }

    /// The same settings with `keyword` set to `value`, whatever was given.
    public func replacing(_ keyword: String, with value: String) -> PostgresConnectionSettings {
        var copy = self
        copy.parameters = parameters.filter { $0.keyword != keyword } + [(keyword, value)]
        return copy
    }

    /// The value of `keyword`, if given or added.
    public func value(of keyword: String) -> String? {
        parameters.last { $0.keyword == keyword }?.value
    }

    /// The password, if the string held one: messages are scrubbed of it.
    var password: String? {
        value(of: "password").flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `postgresql://user@host:port/dbname` without the password or any other parameter, for logs
    /// and error messages. Parts the string did not give are left out (libpq takes them from
    /// the environment or its defaults).
    public var description: String {
        var text = "postgresql://"
        if let user = value(of: "user") { text += Self.encoded(user) + "@" }
        if let host = value(of: "host") ?? value(of: "hostaddr") {
            text += host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : Self.encoded(host, keeping: ",")
        }
        if let port = value(of: "port") { text += ":" + Self.encoded(port, keeping: ",") }
        if let database = value(of: "dbname") { text += "/" + Self.encoded(database) }
        return text
    }

    /// Removes the password from a libpq or server message.
    func scrubbed(_ message: String) -> String {
        guard let password else { return message }
        return message.replacingOccurrences(of: password, with: "***")
    }

    private static func encoded(_ part: String, keeping extra: String = "") -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~" + extra))
        return part.addingPercentEncoding(withAllowedCharacters: allowed) ?? part
    }
}
