public import ConfigCore
public import Foundation

/// A client API key as stored: its SHA-256 only, with the name it was given and the environment
/// it serves.
public struct StoredAPIKey: Sendable, Equatable {
    /// Lower-case hex SHA-256 of the key.
    public var keyHash: String
    public var name: String
    public var createTime: Date
    /// The environment whose templates the key is served.
    public var environment: EnvironmentID

    /// - Parameters: see the properties.
    public init(keyHash: String, name: String, createTime: Date, environment: EnvironmentID = .production) {
        self.keyHash = keyHash
        self.name = name
        self.createTime = createTime
        self.environment = environment
    }
}
