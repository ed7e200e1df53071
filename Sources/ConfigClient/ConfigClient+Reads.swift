import Synchronization

/// Reads of the active config over the in-app defaults. None fails: a key that is missing or
/// does not parse gives the in-app default, then the caller's default.
extension ConfigClient {
    /// The value of `key` with its source.
    public func value(forKey key: String) -> ConfigValue {
        state.withLock { $0.values.value(forKey: key) }
    }

    /// Where the value of `key` comes from.
    public func source(forKey key: String) -> ValueSource {
        value(forKey: key).source
    }

    /// Keys that have a value, optionally only those from `source`.
    public func keys(source: ValueSource? = nil) -> Set<String> {
        let values = state.withLock { $0.values }
        return values.keys.filter { source == nil || values.value(forKey: $0).source == source }
    }

    /// `key` as a boolean (see ``ConfigValue/boolValue``), or `defaultValue`.
    public func bool(_ key: String, default defaultValue: Bool) -> Bool {
        read(key, default: defaultValue) { $0.boolValue }
    }

    /// `key` as a string, or `defaultValue` when neither the server nor the defaults have it.
    public func string(_ key: String, default defaultValue: String) -> String {
        read(key, default: defaultValue) { $0.stringValue }
    }

    /// `key` as an integer (see ``ConfigValue/intValue``), or `defaultValue`.
    public func int(_ key: String, default defaultValue: Int) -> Int {
        read(key, default: defaultValue) { $0.intValue }
    }

    /// `key` as a finite number, or `defaultValue`.
    public func double(_ key: String, default defaultValue: Double) -> Double {
        read(key, default: defaultValue) { $0.doubleValue }
    }

    /// `key` decoded from JSON, or `defaultValue`.
    public func json<T: Decodable>(_ key: String, as type: T.Type = T.self, default defaultValue: T) -> T {
        read(key, default: defaultValue) { $0.decode(type) }
    }

    private func read<T>(_ key: String, default defaultValue: T, _ convert: (ConfigValue) -> T?) -> T {
        state.withLock { $0.values }.read(key, fallback: defaultValue, convert)
    }
}
