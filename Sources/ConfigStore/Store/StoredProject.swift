/// A project as stored: its ID, its numeric project number and evaluation settings.
public struct StoredProject: Sendable, Hashable {
    /// The project ID used in paths (`my-project`); 1 to 128 characters.
    public var id: String
    /// The project number (`123456789012`): 1 to 32 ASCII digits, unique among projects.
    public var number: String
    /// A human-readable name.
    public var displayName: String
    /// Default seed for `percent` conditions that name none (empty = unseeded).
    public var percentSeed: String

    /// - Parameters: see the properties.
    public init(id: String, number: String, displayName: String = "", percentSeed: String = "") {
        self.id = id
        self.number = number
        self.displayName = displayName
        self.percentSeed = percentSeed
    }
}
