import Foundation

/// The values an app reads: the active remote entries over the in-app defaults. A value type,
/// so one read sees one consistent config.
struct ConfigValues: Sendable, Equatable {
    var remote: [String: String] = [:]
    var defaults: [String: String] = [:]
    /// The rollouts behind remote values: key → rollout id → variant id.
    var rollouts: RolloutAssignments = [:]

    /// Every key with a remote or default value.
    var keys: Set<String> { Set(remote.keys).union(defaults.keys) }

    func value(forKey key: String) -> ConfigValue {
        if let value = remote[key] { return ConfigValue(stringValue: value, source: .remote) }
        if let value = defaults[key] { return ConfigValue(stringValue: value, source: .default) }
        return .missing
    }

    /// The first of the remote value, the in-app default and `fallback` that is usable:
    /// a remote string that does not parse falls through to the in-app default.
    func read<T>(_ key: String, fallback: T, _ convert: (ConfigValue) -> T?) -> T {
        if let value = remote[key], let converted = convert(ConfigValue(stringValue: value, source: .remote)) {
            return converted
        }
        if let value = defaults[key], let converted = convert(ConfigValue(stringValue: value, source: .default)) {
            return converted
        }
        return fallback
    }
}
