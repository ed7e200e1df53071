import ConfigCore
import Foundation
import Testing

/// Loads the exported templates in `Fixtures/`.
enum TemplateFixtures {
    static func data(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
        return try Data(contentsOf: url)
    }

    /// The client template exported from Firebase.
    static func clientExport() throws -> RemoteConfigTemplate {
        try RemoteConfigTemplate.decode(json: data("firebase-export"))
    }

    /// The server template as `serverRemoteConfig` returns it.
    static func serverExport() throws -> RemoteConfigTemplate {
        try RemoteConfigTemplate.decode(json: data("firebase-server-export"))
    }

    /// Decodes a template written inline in a test.
    static func template(_ json: String) throws -> RemoteConfigTemplate {
        try RemoteConfigTemplate.decode(json: Data(json.utf8))
    }

    /// The canonical JSON of `value` as a string.
    static func json(_ value: some Encodable) -> String {
        String(decoding: TemplateJSON.encode(value), as: UTF8.self)
    }
}
