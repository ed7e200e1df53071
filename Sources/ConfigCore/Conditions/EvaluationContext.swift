public import Foundation

/// Who is asking for config: everything a condition may look at.
///
/// Built by the fetch endpoint from the SDK's request body; a `nil` or empty field means the
/// client did not say, and every rule that needs it evaluates to `false`.
public struct EvaluationContext: Sendable, Equatable {
    /// Firebase app id, e.g. `1:123456789012:android:0a1b2c3d4e5f6789`.
    public var appId: String?
    public var appVersion: String?
    public var appBuild: String?
    /// `android`, `ios` or `web`; derived from `appId` when not given.
    public var platform: String?
    public var countryCode: String?
    public var languageCode: String?
    /// The installation id (`appInstanceId`, as the client SDKs send it).
    public var appInstanceId: String?
    /// `randomizationId`, the Admin SDKs' name for the id that server-template percent
    /// conditions hash (protocol notes §5.3); a backend evaluating for one of its users sends it.
    public var randomizationId: String?
    public var customSignals: [String: String]
    public var userProperties: [String: String]
    public var firstOpenTime: Date?
    /// Olson time zone id of the device, used by `dateTime` rules that name no zone.
    public var timeZone: String?
    /// The time of the fetch.
    public var now: Date
    /// Seed for `percent` rules that name none (per project; empty = the Admin SDK's unseeded hash).
    public var defaultPercentSeed: String

    public init(
        appId: String? = nil,
        appVersion: String? = nil,
        appBuild: String? = nil,
        platform: String? = nil,
        countryCode: String? = nil,
        languageCode: String? = nil,
        appInstanceId: String? = nil,
        randomizationId: String? = nil,
        customSignals: [String: String] = [:],
        userProperties: [String: String] = [:],
        firstOpenTime: Date? = nil,
        timeZone: String? = nil,
        now: Date = SystemClock().now,
        defaultPercentSeed: String = ""
    ) {
        self.appId = appId
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.platform = platform
        self.countryCode = countryCode
        self.languageCode = languageCode
        self.appInstanceId = appInstanceId
        self.randomizationId = randomizationId
        self.customSignals = customSignals
        self.userProperties = userProperties
        self.firstOpenTime = firstOpenTime
        self.timeZone = timeZone
        self.now = now
        self.defaultPercentSeed = defaultPercentSeed
    }
}

extension EvaluationContext {
    /// Who client-template rules (percent, installation id) take the client to be: the app
    /// instance, or, when none was sent, the randomization id.
    var clientInstanceId: String? { appInstanceId ?? randomizationId }

    /// The id server-template percent conditions hash: `randomizationId` when sent, as the Admin
    /// SDKs read it (so an empty one makes every percent condition false, as there), otherwise
    /// the app instance id. With neither, every percent condition is false (§5.3, step 1).
    var serverRandomizationId: String? { randomizationId ?? appInstanceId }
}
