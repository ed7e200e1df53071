public import HTTP1

/// Limits and deadlines of the HTTP server. Every field has a production default.
public struct HTTPServerConfiguration: Sendable {
    /// Request size limits handed to the parser.
    public var limits: HTTPLimits
    /// Seconds a client has to send a complete request head once it started one (slowloris).
    public var headerTimeout: Int64
    /// Seconds a client has to send a request body once its head is complete.
    public var bodyTimeout: Int64
    /// Seconds an idle keep-alive connection is kept.
    public var idleTimeout: Int64
    /// Seconds a response may wait for the client to read it before the connection is cut.
    public var writeTimeout: Int64
    /// Connections this process holds at most; beyond, new ones get a 503 and are closed.
    public var maxConnections: Int
    /// Bytes a streaming response may have queued for a client that does not read, then close.
    public var streamOutputCap: Int
    /// After an error answer that closes the connection (413, 400, 408), what the client still
    /// sends is read and dropped before the close, so that its unread answer is not destroyed
    /// by a reset: for at most `lingerTimeout` seconds, `lingerIdleTimeout` without a byte, and
    /// `lingerMaxBytes` bytes (as nginx's `lingering_close`).
    public var lingerTimeout: Int64
    public var lingerIdleTimeout: Int64
    public var lingerMaxBytes: Int
    /// Seconds in-flight requests get to finish on shutdown.
    public var shutdownGracePeriod: Int64
    /// Log one line per request.
    public var accessLog: Bool
    /// Query parameters whose values the access log never shows (API keys, tokens).
    public var secretQueryParameters: Set<String>
    /// Peers whose `X-Forwarded-For` is believed for the client address (the reverse proxy).
    public var trustedProxies: Set<String>

    public init(
        limits: HTTPLimits = HTTPLimits(),
        headerTimeout: Int64 = 10,
        bodyTimeout: Int64 = 30,
        idleTimeout: Int64 = 75,
        writeTimeout: Int64 = 30,
        maxConnections: Int = 10_000,
        streamOutputCap: Int = 64 * 1024,
        lingerTimeout: Int64 = 5,
        lingerIdleTimeout: Int64 = 2,
        lingerMaxBytes: Int = 32 << 20,
        shutdownGracePeriod: Int64 = 10,
        accessLog: Bool = true,
        secretQueryParameters: Set<String> = ["key", "access_token"],
        trustedProxies: Set<String> = []
    ) {
        self.limits = limits
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.writeTimeout = writeTimeout
        self.maxConnections = maxConnections
        self.streamOutputCap = streamOutputCap
        self.lingerTimeout = lingerTimeout
        self.lingerIdleTimeout = lingerIdleTimeout
        self.lingerMaxBytes = lingerMaxBytes
        self.shutdownGracePeriod = shutdownGracePeriod
        self.accessLog = accessLog
        self.secretQueryParameters = secretQueryParameters
        self.trustedProxies = trustedProxies
    }
}
