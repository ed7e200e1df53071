/// What a config update changed, as reported to update listeners.
public struct ConfigUpdate: Sendable, Hashable {
    /// Keys whose value or source differs between the active config and the new fetched one:
    /// added, removed, changed value, or changed source (for example remote → in-app default);
    /// and, as the Firebase SDKs do, keys whose rollout assignment changed even if their value
    /// did not (the instance entered or left a rollout, or its variant changed).
    public let updatedKeys: Set<String>

    /// - Parameter updatedKeys: the keys that changed.
    public init(updatedKeys: Set<String>) {
        self.updatedKeys = updatedKeys
    }
}

/// Computes ``ConfigUpdate/updatedKeys``.
enum UpdateDiff {
    /// Keys that read differently (string or source) in `new` than in `old`, or whose rollouts
    /// differ.
    static func updatedKeys(from old: ConfigValues, to new: ConfigValues) -> Set<String> {
        old.keys.union(new.keys).union(old.rollouts.keys).union(new.rollouts.keys).filter {
            old.value(forKey: $0) != new.value(forKey: $0) || old.rollouts[$0] != new.rollouts[$0]
        }
    }
}
