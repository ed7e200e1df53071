/// What a config update changed, as reported to update listeners.
public struct ConfigUpdate: Sendable, Hashable {
    /// Keys whose value or source differs between the active config and the new fetched one:
    /// added, removed, changed value, or changed source (for example remote → in-app default).
    public let updatedKeys: Set<String>

    /// - Parameter updatedKeys: the keys that changed.
    public init(updatedKeys: Set<String>) {
        self.updatedKeys = updatedKeys
    }
}

/// Computes ``ConfigUpdate/updatedKeys``.
enum UpdateDiff {
    /// Keys that read differently (string or source) in `new` than in `old`.
    static func updatedKeys(from old: ConfigValues, to new: ConfigValues) -> Set<String> {
        old.keys.union(new.keys).filter { old.value(forKey: $0) != new.value(forKey: $0) }
    }
}
