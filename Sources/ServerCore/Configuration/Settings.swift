/// HTTP limits and timeouts (seconds).
public struct HTTPSettings: Sendable, Codable, Equatable {
    public var maxHeaderBytes = 16 * 1024
    public var maxHeaderCount = 100
    public var maxURILength = 8 * 1024
    public var maxBodyBytes = 2 * 1024 * 1024
    public var headerTimeout = 10
    public var bodyTimeout = 30
    public var idleTimeout = 75
    public var writeTimeout = 30
    /// Bytes a held stream may have waiting for a client that stopped reading; beyond it the
    /// stream is closed, so a stalled client neither holds memory nor delays the others.
    public var maxStreamBacklogBytes = 64 * 1024
    /// Open connections per worker (held streams included); beyond it new ones get a 503.
    public var maxConnectionsPerWorker = 19_000
    public var shutdownGracePeriod = 10
    public var accessLog = true
    public init() {}
}

/// Client fetch behaviour.
public struct FetchSettings: Sendable, Codable, Equatable {
    /// Require a project API key (`X-Goog-Api-Key` or `?key=`) on fetch and real-time.
    public var requireAPIKey = true
    /// Token bucket per app instance: burst size and refill per minute; 0 disables.
    public var throttleBurst = 30
    public var throttlePerMinute = 60
    public init() {}
}

/// Real-time stream behaviour.
public struct RealtimeSettings: Sendable, Codable, Equatable {
    /// Held streams across all workers.
    public var maxConnections = 100_000
    /// Held streams per project across all workers; 0 = only the global cap.
    public var maxConnectionsPerProject = 0
    /// How often an idle stream gets a message (proxies with a 60 s read timeout keep it).
    public var heartbeatSeconds = 45
    /// Streams end cleanly after this long, minus up to `lifetimeJitterSeconds`.
    public var maxLifetimeSeconds = 290
    public var lifetimeJitterSeconds = 60
    /// Retry hint for clients refused at the cap or told to go at shutdown; jittered ±50 %.
    public var retryIntervalSeconds = 60
    /// Invalidation messages per second per worker; 0 = as fast as possible.
    public var notificationsPerSecond = 0
    /// Streams a fan-out writes before the loop answers what else waits (a publisher's answer,
    /// requests), then the next as many.
    public var fanOutSliceStreams = 256
    public init() {}
}

/// Where templates, projects and keys live.
public struct StoreSettings: Sendable, Codable, Equatable {
    /// `sqlite` (one file in the data directory, the default) or `postgres` (several nodes on
    /// one database).
    public var kind = StoreKind.sqlite
    /// For `postgres`: a libpq URL or conninfo (`postgresql://user:password@host:5432/db`).
    /// Never logged with its password. Empty for `sqlite` (a string, not an optional, so that
    /// the config file may name it: the file's keys are checked against the defaults').
    public var url = ""
    /// How often each worker compares the store's change token, as a backstop to the
    /// notifications (seconds). Reading it is one cheap query.
    public var pollIntervalSeconds = 1.0
    /// For `postgres`: how long a heartbeat of the node's notification connection may wait for
    /// its answer before the connection is dropped and made again (seconds). Heartbeats go
    /// every `ListenerLiveness.heartbeatInterval` whatever the traffic: writers wait only for
    /// nodes whose last one is recent.
    public var heartbeatSeconds = 10
    /// For `postgres`: how long a write may take, counted from when the store begins it, while
    /// it waits for every live node to apply it; it answers anyway by then (seconds;
    /// docs/scaling.md).
    public var acknowledgementSeconds = 2.0
    /// How long a request may wait for the store, its time in the worker's store queue
    /// included, before it is answered 503 (seconds). A write not committed by then is
    /// abandoned and never runs later; for `postgres`, one whose COMMIT got no answer is
    /// answered 503 "outcome unknown" and never retried. Background reads have the same bound.
    public var requestTimeoutSeconds = 1.5
    /// For `postgres`: how long a transaction of this server may sit idle before the database
    /// ends it (`idle_in_transaction_session_timeout`), so that a node cut off in the middle
    /// of a write holds its locks no longer than this (seconds; 0 leaves the database's
    /// setting).
    public var abandonedTransactionSeconds = 5.0
    public init() {}

    /// `requestTimeoutSeconds` as a duration.
    package var requestTimeout: Duration { .milliseconds(Int(requestTimeoutSeconds * 1000)) }
}

/// The store implementations.
public enum StoreKind: String, Sendable, Codable, Equatable {
    case sqlite, postgres
}

/// Template storage and validation.
public struct TemplateSettings: Sendable, Codable, Equatable {
    /// Versions kept per template; the active one is never pruned.
    public var retention = 300
    public var maxParameters = 2000
    public var maxConditions = 500
    public init() {}
}

/// The audit log (docs/access.md).
public struct AuditSettings: Sendable, Codable, Equatable {
    /// Entries older than this are removed.
    public var retentionDays = 400
    public init() {}
}

/// Counting what clients read (docs/insights.md).
public struct UsageSettings: Sendable, Codable, Equatable {
    /// How often each worker adds its counts to the store (seconds); it also does at every
    /// hour's start and when it stops.
    public var flushIntervalSeconds = 10.0
    /// How many app versions and platforms a usage report names per window unless asked.
    public var topValues = 10
    public init() {}

    func validate() throws {
        guard flushIntervalSeconds > 0, flushIntervalSeconds <= 3_600 else {
            throw ConfigurationError("usage.flushIntervalSeconds must be more than 0 and at most 3600")
        }
        guard (1...100).contains(topValues) else { throw ConfigurationError("usage.topValues must be between 1 and 100") }
    }
}
