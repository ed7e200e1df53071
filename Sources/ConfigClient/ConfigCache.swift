import Foundation

/// Parameter key → rollout id → variant id: the `rolloutMetadata` of a fetch answer by key,
/// as the Firebase SDKs compare it.
typealias RolloutAssignments = [String: [String: String]]

/// One fetched config as kept in memory and on disk.
struct FetchedConfig: Codable, Sendable, Equatable {
    var entries: [String: String]
    var templateVersion: Int64
    var etag: String?
    /// Absent in caches written before rollouts were kept.
    var rollouts: RolloutAssignments?
}

/// Contents of the cache file.
struct CacheContents: Codable, Sendable, Equatable {
    /// Bumped when the layout changes; files of another format are ignored.
    static let currentFormat = 1

    var format = CacheContents.currentFormat
    /// The last fetched config; activated on the next start.
    var fetched: FetchedConfig?
    var lastFetchTime: Date?
    var appInstanceId: String?
}

/// The cache file: JSON in a caller-chosen directory, replaced atomically on every save.
struct ConfigCache: Sendable {
    /// `nil` when the client keeps nothing on disk.
    let fileURL: URL?

    /// - Parameters:
    ///   - directory: where the file lives, or `nil` for no file.
    ///   - project: part of the file name, so clients of several projects can share a directory.
    ///   - namespace: part of the file name.
    init(directory: URL?, project: String, namespace: String) {
        let name = "remote-config-\(APIPaths.escape(project))-\(APIPaths.escape(namespace)).json"
        fileURL = directory?.appendingPathComponent(name)
    }

    /// The saved contents; empty when there is no file, and also when it is unreadable or of
    /// another format, because a broken cache must never stop the app from reading defaults.
    func load() -> CacheContents {
        guard let fileURL, let data = try? Data(contentsOf: fileURL) else { return CacheContents() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let contents = try? decoder.decode(CacheContents.self, from: data), contents.format == CacheContents.currentFormat else {
            return CacheContents()
        }
        return contents
    }

    /// Writes `contents`, creating the directory if needed.
    /// - Throws: the file system error, naming the path.
    func save(_ contents: CacheContents) throws {
        guard let fileURL else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let data = try encoder.encode(contents)
        try FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: fileURL, options: .atomic)
    }
}
