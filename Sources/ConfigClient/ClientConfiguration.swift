public import Foundation

/// Everything a ``ConfigClient`` needs to talk to the server and keep its cache.
public struct ClientConfiguration: Sendable {
    /// Scheme, host and port of the server, e.g. `http://127.0.0.1:8080`.
    public var baseURL: String
    /// Project id or number.
    public var project: String
    /// Sent as `X-Goog-Api-Key`.
    public var apiKey: String
    /// The GMP app id, e.g. `1:123456789012:web:0a1b2c3d4e5f6789`.
    public var appId: String
    /// The installation id used for percent conditions; when `nil` one is generated and kept
    /// in the cache file (or for the life of the process without a cache directory).
    public var appInstanceId: String?
    /// The installation auth token, sent in the fetch body when set.
    public var appInstanceIdToken: String?
    /// `firebase` for client templates.
    public var namespace: String
    /// Directory for the cache file; `nil` keeps everything in memory.
    public var cacheDirectory: URL?
    /// Seconds a successful fetch stays fresh: `fetch()` within it does not contact the server.
    public var minimumFetchInterval: TimeInterval
    /// Seconds allowed for one fetch request.
    public var fetchTimeout: TimeInterval
    /// Device and app facts the server's conditions look at.
    public var context: ClientContext
    /// Sent as `sdkVersion`.
    public var sdkVersion: String
    /// Delays between reconnects of the real-time stream.
    public var reconnectBackoff: Backoff
    /// While the real-time stream is refused or broken, fetch this often (seconds).
    public var fallbackPollInterval: TimeInterval

    /// - Parameters:
    ///   - baseURL: scheme, host and port of the server.
    ///   - project: project id or number.
    ///   - apiKey: the client API key.
    ///   - appId: the GMP app id.
    ///   - appInstanceId: a stable installation id, or `nil` to generate one.
    ///   - namespace: the template namespace.
    ///   - cacheDirectory: where the cache file lives, or `nil` for none.
    ///   - minimumFetchInterval: freshness of a fetch in seconds (default 12 h).
    ///   - context: facts for condition evaluation.
    public init(
        baseURL: String,
        project: String,
        apiKey: String,
        appId: String,
        appInstanceId: String? = nil,
        namespace: String = "firebase",
        cacheDirectory: URL? = nil,
        minimumFetchInterval: TimeInterval = 12 * 60 * 60,
        context: ClientContext = ClientContext()
    ) {
        self.baseURL = baseURL
        self.project = project
        self.apiKey = apiKey
        self.appId = appId
        self.appInstanceId = appInstanceId
        self.namespace = namespace
        self.cacheDirectory = cacheDirectory
        self.minimumFetchInterval = minimumFetchInterval
        self.fetchTimeout = 60
        self.context = context
        self.sdkVersion = "swift-config-client/1.0"
        self.reconnectBackoff = Backoff()
        self.fallbackPollInterval = 300
    }
}

/// Facts about the device and app, sent with every fetch (field names as in the fetch API).
/// Conditions on a missing fact evaluate to false on the server.
public struct ClientContext: Sendable, Equatable, Codable {
    public var countryCode: String?
    public var languageCode: String?
    public var platformVersion: String?
    public var timeZone: String?
    public var appVersion: String?
    public var appBuild: String?
    public var packageName: String?
    /// RFC 3339 time of the first app start.
    public var firstOpenTime: String?
    public var analyticsUserProperties: [String: String]?
    public var customSignals: [String: String]?

    /// Creates a context; every fact is optional.
    public init(
        countryCode: String? = nil,
        languageCode: String? = nil,
        platformVersion: String? = nil,
        timeZone: String? = nil,
        appVersion: String? = nil,
        appBuild: String? = nil,
        packageName: String? = nil,
        firstOpenTime: String? = nil,
        analyticsUserProperties: [String: String]? = nil,
        customSignals: [String: String]? = nil
    ) {
        self.countryCode = countryCode
        self.languageCode = languageCode
        self.platformVersion = platformVersion
        self.timeZone = timeZone
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.packageName = packageName
        self.firstOpenTime = firstOpenTime
        self.analyticsUserProperties = analyticsUserProperties
        self.customSignals = customSignals
    }
}
