public import ConfigCore
public import Foundation

/// One of a project's environments as stored (docs/environments.md).
public struct StoredEnvironment: Sendable, Hashable {
    public var project: String
    public var id: EnvironmentID
    public var displayName: String
    /// Where it comes in the order a change moves through the project's environments
    /// (ascending); production's is `productionPosition`, after every other.
    public var position: Int64
    /// How long a version must have been active in the environment before this one before it may
    /// be promoted here; 0 when there is no such rule.
    public var soakSeconds: Int64
    public var createTime: Date

    /// Production's position: the last.
    public static let productionPosition: Int64 = 1_000_000_000
    /// The longest soak rule: 90 days.
    public static let maxSoakSeconds: Int64 = 90 * 86_400

    /// - Parameters: see the properties.
    public init(project: String, id: EnvironmentID, displayName: String, position: Int64, soakSeconds: Int64 = 0, createTime: Date) {
        self.project = project
        self.id = id
        self.displayName = displayName
        self.position = position
        self.soakSeconds = soakSeconds
        self.createTime = createTime
    }
}
