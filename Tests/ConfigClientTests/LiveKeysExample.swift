import ConfigClient
import Foundation

/// The remote config of an app in which only the keys tested for live updates change while it
/// runs. A new value of any other key is fetched and cached as soon as it is published, and
/// used from the next start.
final class AppRemoteConfig: Sendable {
    /// Keys whose screens were tested with the value changing under them.
    static let liveKeys: Set<String> = ["banner_text", "maintenance_mode"]

    /// A parameter whose value is a JSON object.
    struct Upload: Codable, Sendable, Equatable {
        var maxMegabytes: Int
        var fileTypes: [String]
    }

    /// In-app values for keys the server does not send (and for every key before the first fetch).
    enum Default {
        static let bannerText = "Welcome!"
        static let maintenanceMode = false
        static let resultsPerPage = 20
        static let upload = Upload(maxMegabytes: 25, fileTypes: ["jpg", "png"])
    }

    let client: ConfigClient

    /// Makes the client, which activates the config fetched during the previous run (read from
    /// the cache file), and sets the in-app defaults. Makes no request.
    init(serverURL: String, cacheDirectory: URL) throws {
        let configuration = ClientConfiguration(
            baseURL: serverURL,
            project: "example-project",
            apiKey: "example-api-key",
            appId: "1:123456789012:ios:0a1b2c3d",
            cacheDirectory: cacheDirectory,
            // A start within an hour of the last fetch uses the cached config without asking.
            minimumFetchInterval: 60 * 60
        )
        client = ConfigClient(configuration: configuration)
        try client.setDefaults([
            "banner_text": .string(Default.bannerText),
            "maintenance_mode": .bool(Default.maintenanceMode),
            "results_per_page": .int(Default.resultsPerPage),
            "upload": .json(Default.upload),
        ])
    }

    /// Fetches and activates the whole config, then listens for updates and activates only the
    /// live keys among them; the other updated keys stay fetched until the next start.
    /// - Parameter onLiveChange: called on a background queue with the live keys that just
    ///   changed; hop to the main actor to refresh the screens that show them.
    /// - Returns: the listener's registration; keep it while the app runs.
    func start(onLiveChange: @escaping @Sendable (Set<String>) -> Void) async -> ConfigUpdateListenerRegistration {
        do {
            try await client.fetchAndActivate()
        } catch {
            // Offline, or the server refused: the cached config and the defaults stay in use.
            print("remote config: fetch failed: \(error)")
        }
        let client = client
        return client.addOnConfigUpdateListener { update, error in
            if let update {
                let live = update.updatedKeys.intersection(Self.liveKeys)
                if client.activate(keys: live) { onLiveChange(live) }
            } else if let error {
                // The client keeps retrying by itself; this is worth a log line, not an alert.
                print("remote config: updates: \(error)")
            }
        }
    }

    var bannerText: String { client.string("banner_text", default: Default.bannerText) }
    var maintenanceMode: Bool { client.bool("maintenance_mode", default: Default.maintenanceMode) }
    var resultsPerPage: Int { client.int("results_per_page", default: Default.resultsPerPage) }
    var upload: Upload { client.json("upload", default: Default.upload) }
    /// `.remote` when the banner comes from the server, `.default` when from the defaults above.
    var bannerSource: ValueSource { client.source(forKey: "banner_text") }
}
