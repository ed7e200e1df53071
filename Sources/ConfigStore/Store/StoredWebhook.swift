public import Foundation

/// A webhook endpoint of a project: where its events are sent, which ones, and the secrets that
/// sign them (docs/webhooks.md).
public struct StoredWebhook: Sendable, Equatable {
    /// `wh_` and random hex, given when it is made.
    public var id: String
    public var project: String
    public var url: String
    public var description: String
    /// The event types it wants (`WebhookEventType` raw values), each once.
    public var events: [String]
    /// `whsec_` and the base64 of the HMAC key: the server must be able to sign with it, so it is
    /// stored as is (docs/webhooks.md says how to protect the database).
    public var secret: String
    /// The secret a rotation replaced, still signing until `previousSecretExpireTime`.
    public var previousSecret: String?
    public var previousSecretExpireTime: Date?
    public var createTime: Date
    public var updateTime: Date

    /// - Parameters: see the properties.
    public init(
        id: String, project: String, url: String, description: String, events: [String], secret: String,
        previousSecret: String? = nil, previousSecretExpireTime: Date? = nil, createTime: Date, updateTime: Date
    ) {
        self.id = id
        self.project = project
        self.url = url
        self.description = description
        self.events = events
        self.secret = secret
        self.previousSecret = previousSecret
        self.previousSecretExpireTime = previousSecretExpireTime
        self.createTime = createTime
        self.updateTime = updateTime
    }

    /// Whether the endpoint wants events of `type`.
    public func wants(_ type: String) -> Bool { events.contains(type) }

    /// The secrets that sign a message sent at `now`: the current one, and the previous one
    /// during the overlap after a rotation.
    public func signingSecrets(at now: Date) -> [String] {
        guard let previousSecret, let expiry = previousSecretExpireTime, expiry > now else { return [secret] }
        return [secret, previousSecret]
    }
}
