package import ConfigCore
import Foundation
import Glibc

/// Everything the daemon can be told, from the config file, then environment, then flags.
///
/// Every field has a default, so an empty file (or none) gives a working loopback server.
public struct ServerConfiguration: Sendable, Codable, Equatable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// Holds `remote-config.sqlite` when the store is SQLite.
    public var dataDir = "./data"
    /// Worker processes; 0 means one per core.
    public var workers = 0
    public var adminTokens: [AdminTokenDeclaration] = []
    public var projects: [ProjectDeclaration] = []
    public var http = HTTPSettings()
    public var fetch = FetchSettings()
    public var realtime = RealtimeSettings()
    public var templates = TemplateSettings()
    public var store = StoreSettings()
    public var audit = AuditSettings()
    public var signIn = SignInSettings()
    public var webhooks = WebhookSettings()
    public var usage = UsageSettings()
    /// Start even when listening beyond loopback without a (non-default) admin token.
    public var allowInsecureAdmin = false
    /// Addresses whose `X-Forwarded-For` is believed (e.g. the reverse proxy).
    public var trustedProxies: [String] = ["127.0.0.1", "::1"]
    /// `trace`, `debug`, `info`, `notice`, `warning`, `error`, `critical`.
    public var logLevel = "info"
    /// `text` (one readable line per event) or `json` (one JSON object per line).
    public var logFormat = "text"

    public init() {}

    /// The token shipped in `config/remote-config.json` for the quick start; refused beyond loopback.
    public static let quickStartAdminToken = "dev-admin-token"

    public var databasePath: String {
        URL(fileURLWithPath: dataDir).appendingPathComponent("remote-config.sqlite").path
    }

    /// Reads a JSON config file; a missing field keeps its default, an unknown one is an error
    /// (a misspelt setting must not be silently ignored).
    public static func load(from path: String) throws -> ServerConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError("cannot read config file \(path): \(error.localizedDescription)")
        }
        do {
            let defaults = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ServerConfiguration()))
            guard let file = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw ConfigurationError("\(path): the top level must be a JSON object")
            }
            let merged = try merge(file, over: defaults as? [String: Any] ?? [:], path: "")
            return try JSONDecoder().decode(ServerConfiguration.self, from: JSONSerialization.data(withJSONObject: merged))
        } catch let error as DecodingError {
            throw ConfigurationError("\(path): \(decodingErrorDescription(error))")
        } catch let error as ConfigurationError {
            throw ConfigurationError("\(path): \(error.description)")
        } catch {
            throw ConfigurationError("\(path): not valid JSON (\(error.localizedDescription))")
        }
    }

    /// Settings that no longer exist, and why: a file that still sets one is told so, not that
    /// it misspelt a setting.
    static let removedSettings = [
        "store.connections": "a worker uses one PostgreSQL connection for each lane that calls the store "
            + "(\(StoreExecutor.Lane.allCases.map(\.rawValue).joined(separator: ", "))), and never more at once",
    ]

    /// Overlays `file` on `defaults`, object by object; arrays and scalars replace.
    private static func merge(_ file: [String: Any], over defaults: [String: Any], path: String) throws -> [String: Any] {
        var result = defaults
        for (key, value) in file {
            // Keys starting with '$' are comments.
            if key.hasPrefix("$") { continue }
            let keyPath = path.isEmpty ? key : "\(path).\(key)"
            guard let defaultValue = defaults[key] else {
                if let reason = removedSettings[keyPath] {
                    throw ConfigurationError("the setting '\(keyPath)' was removed: \(reason); delete it from the file")
                }
                throw ConfigurationError("unknown setting '\(keyPath)'")
            }
            if let nested = value as? [String: Any], let nestedDefault = defaultValue as? [String: Any] {
                result[key] = try merge(nested, over: nestedDefault, path: keyPath)
            } else {
                result[key] = value
            }
        }
        return result
    }

    /// Fails with a message naming the problem.
    public func validate() throws {
        guard (0...65535).contains(port) else { throw ConfigurationError("port \(port) is out of range") }
        guard workers >= 0, workers <= 64 else { throw ConfigurationError("workers must be between 0 and 64") }
        guard ["text", "json"].contains(logFormat) else { throw ConfigurationError("logFormat must be text or json, got '\(logFormat)'") }
        var seen = Set<String>()
        for project in projects {
            if let problem = ProjectIdentity.problem(id: project.id, number: project.number) {
                throw ConfigurationError(problem)
            }
            guard seen.insert(project.id).inserted, seen.insert(project.number).inserted else {
                throw ConfigurationError("project '\(project.id)' is declared twice (id or number)")
            }
            if let namespace = project.openFeatureNamespace, TemplateNamespace(rawValue: namespace) == nil {
                throw ConfigurationError("project '\(project.id)': openFeatureNamespace must be 'firebase' or 'firebase-server', "
                    + "got '\(namespace)'")
            }
        }
        switch store.kind {
        case .sqlite:
            guard store.url.isEmpty else { throw ConfigurationError("store.url is for kind postgres; SQLite lives in dataDir") }
        case .postgres:
            guard !store.url.isEmpty else {
                throw ConfigurationError("store.kind postgres needs store.url (or RCS_DATABASE_URL)")
            }
        }
        guard store.acknowledgementSeconds >= 0, store.acknowledgementSeconds <= 60 else {
            throw ConfigurationError("store.acknowledgementSeconds must be between 0 and 60")
        }
        guard (1...3600).contains(store.heartbeatSeconds) else {
            throw ConfigurationError("store.heartbeatSeconds must be between 1 and 3600")
        }
        guard store.requestTimeoutSeconds >= 0.1, store.requestTimeoutSeconds <= 600 else {
            throw ConfigurationError("store.requestTimeoutSeconds must be between 0.1 and 600")
        }
        guard store.abandonedTransactionSeconds >= 0, store.abandonedTransactionSeconds <= 86_400 else {
            throw ConfigurationError("store.abandonedTransactionSeconds must be between 0 and 86400")
        }
        guard store.pollIntervalSeconds > 0, store.pollIntervalSeconds <= 3600 else {
            throw ConfigurationError("store.pollIntervalSeconds must be above 0 and at most 3600")
        }
        for token in adminTokens where token.token == nil && token.sha256 == nil {
            throw ConfigurationError("admin token '\(token.name)' needs 'token' or 'sha256'")
        }
        for token in adminTokens {
            for (project, role) in token.roles ?? [:] where Role.projectRole(named: role) == nil {
                throw ConfigurationError("admin token '\(token.name)': the role '\(role)' on project '\(project)' is not one of "
                    + "\(Role.projectRoleNames) (leave 'roles' out for an owner)")
            }
        }
        // A stream lives at most this long (less its jitter), and must end before 300 s.
        guard realtime.maxLifetimeSeconds > 0, realtime.maxLifetimeSeconds < 300 else {
            throw ConfigurationError("realtime.maxLifetimeSeconds must be 1...299 (streams end before 300 s; iOS gives up at 330 s)")
        }
        guard http.maxStreamBacklogBytes > 0 else { throw ConfigurationError("http.maxStreamBacklogBytes must be positive") }
        guard realtime.heartbeatSeconds > 0 else { throw ConfigurationError("realtime.heartbeatSeconds must be positive") }
        guard (1...36_500).contains(audit.retentionDays) else {
            throw ConfigurationError("audit.retentionDays must be between 1 and 36500")
        }
        guard realtime.fanOutSliceStreams > 0 else { throw ConfigurationError("realtime.fanOutSliceStreams must be positive") }
        try signIn.validate()
        try webhooks.validate()
        try usage.validate()
        try refuseAmbiguousDeclarations()
    }

    /// Project id → the template its OpenFeature clients read, where the config file names one.
    package var openFeatureNamespaces: [String: TemplateNamespace] {
        var namespaces: [String: TemplateNamespace] = [:]
        for project in projects {
            if let namespace = project.openFeatureNamespace.flatMap(TemplateNamespace.init(rawValue:)) { namespaces[project.id] = namespace }
        }
        return namespaces
    }

    /// Whether `host` is a loopback address, where the quick-start defaults are acceptable:
    /// `localhost`, or an IPv4 literal in 127.0.0.0/8, or `::1`. Any other name is taken as
    /// reaching beyond loopback, whatever it resolves to.
    public var bindsLoopbackOnly: Bool {
        if host == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { $0.elementsEqual([UInt8](repeating: 0, count: 15) + [1]) }
    }
}

public struct AdminTokenDeclaration: Sendable, Codable, Equatable {
    /// Recorded as `updateUser.email` of the versions this token publishes.
    public var name: String
    /// The token in clear (convenient, but prefer `sha256`).
    public var token: String?
    /// Lower-case hex SHA-256 of the token.
    public var sha256: String?
    /// Project id → role (`viewer`, `editor`, `publisher`, `admin`) on that project only; nil for
    /// an owner of the whole server.
    public var roles: [String: String]?

    public init(name: String, token: String? = nil, sha256: String? = nil, roles: [String: String]? = nil) {
        self.name = name
        self.token = token
        self.sha256 = sha256
        self.roles = roles
    }
}

public struct ProjectDeclaration: Sendable, Codable, Equatable {
    public var id: String
    public var number: String
    public var displayName: String?
    /// Client API keys that may fetch and listen.
    public var apiKeys: [String]?
    /// Seed of unseeded `percent` conditions.
    public var percentSeed: String?
    /// The template OpenFeature (OFREP) clients of the project are served: `firebase` (the
    /// client template, when nil) or `firebase-server`.
    public var openFeatureNamespace: String?

    public init(id: String, number: String, displayName: String? = nil, apiKeys: [String]? = nil, percentSeed: String? = nil,
                openFeatureNamespace: String? = nil) {
        self.id = id
        self.number = number
        self.displayName = displayName
        self.apiKeys = apiKeys
        self.percentSeed = percentSeed
        self.openFeatureNamespace = openFeatureNamespace
    }
}

/// An invalid setting; the message names it.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Turns a DecodingError into one line naming the field.
func decodingErrorDescription(_ error: DecodingError) -> String {
    func path(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return path.isEmpty ? "(top level)" : path
    }
    switch error {
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
        return "\(path(context)): \(context.debugDescription)"
    case .keyNotFound(let key, let context):
        return "\(path(context)): missing '\(key.stringValue)'"
    case .dataCorrupted(let context):
        return "\(path(context)): \(context.underlyingError.map { "\($0)" } ?? context.debugDescription)"
    @unknown default:
        return "\(error)"
    }
}
