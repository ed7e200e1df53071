public import ConfigStore

/// A value bound to a `$n` parameter of a PostgreSQL statement: the stores' own values, which
/// run here unchanged.
///
/// Integers and text travel in text format; bytes travel in binary format, so `bytea` gets
/// them exactly, NUL bytes included.
public typealias PostgresValue = StoreValue
