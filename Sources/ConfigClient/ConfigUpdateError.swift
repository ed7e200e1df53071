/// Errors delivered to config update listeners. The client keeps trying after each of them
/// (reconnecting with back-off and polling meanwhile) except where noted.
public enum ConfigUpdateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server refused the real-time stream with a status that retrying will not fix
    /// (for example 401, 403, 404).
    case streamRefused(ServerError)
    /// The real-time server could not be reached several times in a row.
    case streamUnavailable(TransportError)
    /// The server turned real-time off for this client; only periodic fetches continue.
    case realtimeDisabled
    /// The stream's body could not be read as messages.
    case invalidStream(InvalidationStreamError)
    /// Fetching the announced version failed.
    case fetchFailed(ConfigClientError)
    /// After several attempts the server still served an older version than it announced.
    case announcedVersionNotFetched(announced: Int64, fetched: Int64)

    public var description: String {
        switch self {
        case .streamRefused(let error): "real-time stream refused: \(error)"
        case .streamUnavailable(let error): "real-time stream unavailable: \(error)"
        case .realtimeDisabled: "real-time updates are disabled by the server"
        case .invalidStream(let error): error.description
        case .fetchFailed(let error): "fetch after an update notice failed: \(error)"
        case .announcedVersionNotFetched(let announced, let fetched):
            "version \(announced) was announced but fetches still return version \(fetched)"
        }
    }
}
