/// Webhook delivery (docs/webhooks.md, "Settings").
public struct WebhookSettings: Sendable, Codable, Equatable {
    /// Let endpoints point at loopback, private, link-local and other non-public addresses
    /// (refused otherwise, when an endpoint is saved and again before each attempt, so that the
    /// server cannot be turned against its own network).
    public var allowPrivateAddresses = false
    /// How long one attempt may take, connection included.
    public var timeoutSeconds = 10.0
    /// How long a worker holds a delivery it is sending before any other may take it over: a
    /// crashed worker's attempt is made again after this. At least the time-out plus 5 s (name
    /// resolution and the nodes' clock differences fit in the rest).
    public var leaseSeconds = 60.0
    /// Attempts one worker makes at once.
    public var maxConcurrentDeliveries = 8
    /// The wait after the first failed attempt; it doubles after each further one.
    public var retryBaseSeconds = 5.0
    /// The longest wait between two attempts.
    public var retryMaxDelaySeconds = 3_600.0
    /// How long after the event (or a redelivery) attempts go on; then the delivery is failed.
    public var retryWindowSeconds = 86_400.0
    /// How often each worker looks for due deliveries; its own commits wake it at once.
    public var pollIntervalSeconds = 1.0
    /// How long the previous secret keeps signing after a rotation, unless the rotation says.
    public var rotationOverlapSeconds = 86_400.0
    /// Delivered and failed events are kept this long in the delivery log.
    public var deliveryLogDays = 30

    public init() {}

    func validate() throws {
        guard timeoutSeconds > 0, timeoutSeconds <= 120 else {
            throw ConfigurationError("webhooks.timeoutSeconds must be above 0 and at most 120")
        }
        guard leaseSeconds >= timeoutSeconds + 5, leaseSeconds <= 3_600 else {
            throw ConfigurationError("webhooks.leaseSeconds must be at least webhooks.timeoutSeconds + 5 and at most 3600")
        }
        guard (1...256).contains(maxConcurrentDeliveries) else {
            throw ConfigurationError("webhooks.maxConcurrentDeliveries must be between 1 and 256")
        }
        guard retryBaseSeconds > 0, retryMaxDelaySeconds >= retryBaseSeconds, retryWindowSeconds > 0 else {
            throw ConfigurationError("webhooks.retryBaseSeconds, retryMaxDelaySeconds and retryWindowSeconds must be positive, "
                + "the maximum delay at least the base")
        }
        guard pollIntervalSeconds > 0, pollIntervalSeconds <= 3_600 else {
            throw ConfigurationError("webhooks.pollIntervalSeconds must be above 0 and at most 3600")
        }
        guard rotationOverlapSeconds >= 0, rotationOverlapSeconds <= 30 * 86_400 else {
            throw ConfigurationError("webhooks.rotationOverlapSeconds must be between 0 and 2592000 (30 days)")
        }
        guard (1...3_650).contains(deliveryLogDays) else {
            throw ConfigurationError("webhooks.deliveryLogDays must be between 1 and 3650")
        }
    }
}
