/// The elements a rule can name (protocol notes §6).
enum ConditionElement: String, CaseIterable {
    case appId = "app.id"
    case appVersion = "app.version"
    case appBuild = "app.build"
    case operatingSystemAndVersion = "app.operatingSystemAndVersion"
    case browserAndVersion = "app.browserAndVersion"
    case userProperty = "app.userProperty"
    case customSignal = "app.customSignal"
    case deviceOS = "device.os"
    case country = "device.country"
    case language = "device.language"
    case installationId = "app.firebaseInstallationId"
    case audiences = "app.audiences"
    case importedSegments = "app.importedSegments"
    case firstOpen = "app.firstOpenTimestamp"
    case dateTime = "dateTime"
    case deviceDateTime = "device.dateTime"
    case percent = "percent"

    static let platforms = ["android", "ios", "web"]
    static let stringMethods: [String: CustomSignalOperator] = [
        "contains": .stringContains, "notContains": .stringDoesNotContain,
        "exactlyMatches": .stringExactlyMatches, "matches": .stringContainsRegex,
    ]
    static let audienceMethods: Set = ["inAtLeastOne", "inAll", "notInAtLeastOne", "notInAll"]
    /// Documented limit of the installation-id rule.
    static let maxInstallationIds = 50
}
